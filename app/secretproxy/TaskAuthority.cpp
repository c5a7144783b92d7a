#include "app/secretproxy/TaskAuthority.h"

#include "common/OpenSslErrors.h"

#include <QHostAddress>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace warren::control {

namespace {

constexpr long kValiditySeconds = 30L * 24 * 3600; // longer than any task's token (a week without a timeout)
constexpr long kBackdateSeconds = 3600;             // a sandbox's clock a little behind this one's

Error failed(const std::string& what) {
    const std::string why = openSslErrors();
    return makeError(ErrorCode::System, "cannot make the task's certificate authority (" + what + "): " +
                                            (why.empty() ? "no detail from OpenSSL" : why));
}

struct KeyFree {
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CertificateFree {
    void operator()(X509* certificate) const { X509_free(certificate); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using CertificatePtr = std::unique_ptr<X509, CertificateFree>;

// One extension, written as openssl.cnf writes it, issued by issuer.
bool addExtension(X509* certificate, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
    if (!extension)
        return false;
    const bool added = X509_add_ext(certificate, extension, -1) == 1;
    X509_EXTENSION_free(extension);
    return added;
}

// A certificate for key, named commonName, valid from an hour ago for kValiditySeconds, with a random
// 128-bit serial; signed by the caller.
CertificatePtr newCertificate(EVP_PKEY* key, const std::string& commonName) {
    CertificatePtr certificate(X509_new());
    if (!certificate || X509_set_version(certificate.get(), 2) != 1)
        return nullptr;
    unsigned char serial[16];
    if (RAND_bytes(serial, sizeof serial) != 1)
        return nullptr;
    serial[0] &= 0x7f; // positive
    BIGNUM* number = BN_bin2bn(serial, sizeof serial, nullptr);
    const bool serialSet = number && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate.get()));
    BN_free(number);
    if (!serialSet || !X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -kBackdateSeconds) ||
        !X509_gmtime_adj(X509_getm_notAfter(certificate.get()), kValiditySeconds) ||
        X509_set_pubkey(certificate.get(), key) != 1)
        return nullptr;
    X509_NAME* name = X509_get_subject_name(certificate.get());
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0) != 1)
        return nullptr;
    return certificate;
}

// "DNS:host" or "IP:address" (a literal as the rules hold it).
std::string subjectName(const std::string& host) {
    return QHostAddress(QString::fromStdString(host)).isNull() ? "DNS:" + host : "IP:" + host;
}

// The name constraints: what the authority may vouch for, and nothing else.
std::string permittedSubtrees(const std::vector<HostRule>& hosts) {
    std::string text = "critical";
    for (const HostRule& rule : hosts) {
        if (rule.literalAddress) {
            const bool v6 = rule.host.find(':') != std::string::npos;
            text += ",permitted;IP:" + rule.host + (v6 ? "/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" : "/255.255.255.255");
        } else {
            text += ",permitted;DNS:" + rule.host; // the name and its subdomains (RFC 5280 4.2.1.10)
        }
    }
    return text;
}

std::string pem(X509* certificate) {
    BIO* bio = BIO_new(BIO_s_mem());
    std::string text;
    if (bio && PEM_write_bio_X509(bio, certificate) == 1) {
        char* data = nullptr;
        const long length = BIO_get_mem_data(bio, &data);
        text.assign(data, std::size_t(length));
    }
    BIO_free(bio);
    return text;
}

int selectHttp11(SSL*, const unsigned char** out, unsigned char* outLength, const unsigned char* in,
                 unsigned int inLength, void*) {
    static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char* selected = nullptr;
    if (SSL_select_next_proto(&selected, outLength, kHttp11, sizeof kHttp11, in, inLength) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK; // a client that offers no http/1.1: no ALPN, plain HTTP/1.1 all the same
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

} // namespace

struct TaskAuthority::Keys {
    KeyPtr key;
    CertificatePtr certificate;
};

TaskAuthority::TaskAuthority(std::unique_ptr<Keys> keys, std::string certificatePem)
    : m_keys(std::move(keys)), m_certificatePem(std::move(certificatePem)) {}

TaskAuthority::~TaskAuthority() {
    for (auto& [host, context] : m_contexts)
        SSL_CTX_free(context);
}

Result<std::unique_ptr<TaskAuthority>> TaskAuthority::create(const std::vector<HostRule>& hosts) {
    auto keys = std::make_unique<Keys>();
    keys->key.reset(EVP_EC_gen("P-256"));
    if (!keys->key)
        return failed("its key");
    keys->certificate = newCertificate(keys->key.get(), "Warren task egress CA");
    X509* certificate = keys->certificate.get();
    if (!certificate || X509_set_issuer_name(certificate, X509_get_subject_name(certificate)) != 1 ||
        !addExtension(certificate, certificate, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
        !addExtension(certificate, certificate, NID_key_usage, "critical,keyCertSign,cRLSign") ||
        !addExtension(certificate, certificate, NID_subject_key_identifier, "hash") ||
        (!hosts.empty() && !addExtension(certificate, certificate, NID_name_constraints, permittedSubtrees(hosts))) ||
        X509_sign(certificate, keys->key.get(), EVP_sha256()) == 0)
        return failed("its certificate");
    std::string text = pem(certificate);
    if (text.empty())
        return failed("its certificate's PEM");
    return std::unique_ptr<TaskAuthority>(new TaskAuthority(std::move(keys), std::move(text)));
}

Result<SSL_CTX*> TaskAuthority::serverContext(const std::string& host) {
    if (const auto found = m_contexts.find(host); found != m_contexts.end())
        return found->second;
    KeyPtr key(EVP_EC_gen("P-256"));
    if (!key)
        return failed("a key for " + host);
    CertificatePtr leaf = newCertificate(key.get(), host.size() <= 64 ? host : "warren-egress");
    X509* issuer = m_keys->certificate.get();
    if (!leaf || X509_set_issuer_name(leaf.get(), X509_get_subject_name(issuer)) != 1 ||
        !addExtension(leaf.get(), issuer, NID_basic_constraints, "critical,CA:FALSE") ||
        !addExtension(leaf.get(), issuer, NID_key_usage, "critical,digitalSignature") ||
        !addExtension(leaf.get(), issuer, NID_ext_key_usage, "serverAuth") ||
        !addExtension(leaf.get(), issuer, NID_authority_key_identifier, "keyid") ||
        !addExtension(leaf.get(), issuer, NID_subject_alt_name, subjectName(host)) ||
        X509_sign(leaf.get(), m_keys->key.get(), EVP_sha256()) == 0)
        return failed("a certificate for " + host);
    SSL_CTX* context = SSL_CTX_new(TLS_server_method());
    if (!context)
        return failed("a TLS context for " + host);
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    SSL_CTX_set_alpn_select_cb(context, selectHttp11, nullptr);
    if (SSL_CTX_use_certificate(context, leaf.get()) != 1 || SSL_CTX_use_PrivateKey(context, key.get()) != 1 ||
        SSL_CTX_add1_chain_cert(context, issuer) != 1) {
        SSL_CTX_free(context);
        return failed("a TLS context for " + host);
    }
    m_contexts.emplace(host, context);
    return context;
}

} // namespace warren::control
