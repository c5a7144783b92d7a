// TaskAuthority and TlsServerSession against OpenSSL's own client, over memory: a client that trusts the
// task's authority gets a verified connection for a bound host and speaks HTTP/1.1 through the session; the
// authority's name constraints make a certificate for any other name worthless; a client that does not
// trust it, or speaks no TLS, ends the session with an error.
#include "app/secretproxy/TaskAuthority.h"
#include "app/secretproxy/TlsServerSession.h"

#include <QtTest>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

using namespace warren::control;

namespace {

std::vector<HostRule> boundHosts() {
    auto network = parseTaskNetwork("allow:api.example.com,*.example.org:8443");
    return network ? network->hosts : std::vector<HostRule>{};
}

// An OpenSSL client over memory BIOs, trusting trustedPem (none: nothing), verifying host.
class Client {
public:
    Client(const std::string& trustedPem, const std::string& host) : m_context(SSL_CTX_new(TLS_client_method())) {
        SSL_CTX_set_verify(m_context, SSL_VERIFY_PEER, nullptr);
        if (!trustedPem.empty()) {
            BIO* bio = BIO_new_mem_buf(trustedPem.data(), int(trustedPem.size()));
            X509* certificate = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
            X509_STORE_add_cert(SSL_CTX_get_cert_store(m_context), certificate);
            X509_free(certificate);
            BIO_free(bio);
        }
        static const unsigned char kAlpn[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
        SSL_CTX_set_alpn_protos(m_context, kAlpn, sizeof kAlpn);
        m_ssl = SSL_new(m_context);
        m_in = BIO_new(BIO_s_mem());
        m_out = BIO_new(BIO_s_mem());
        BIO_set_mem_eof_return(m_in, -1); // empty: more to come
        SSL_set_bio(m_ssl, m_in, m_out);
        SSL_set_connect_state(m_ssl);
        SSL_ctrl(m_ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, const_cast<char*>(host.c_str()));
        SSL_set1_host(m_ssl, host.c_str());
    }
    ~Client() {
        SSL_free(m_ssl);
        SSL_CTX_free(m_context);
    }

    // Handshakes with the session; true when both ends are done.
    bool handshake(TlsServerSession& server, std::string* serverError) {
        for (int round = 0; round < 10; ++round) {
            const int done = SSL_do_handshake(m_ssl);
            const int why = done == 1 ? SSL_ERROR_NONE : SSL_get_error(m_ssl, done);
            const auto received = server.receive(take());
            if (!received) {
                *serverError = received.error().message;
                return false;
            }
            give(server.takeOutput());
            if (done == 1 && server.established())
                return true;
            if (why != SSL_ERROR_NONE && why != SSL_ERROR_WANT_READ) {
                server.receive(take()).ok(); // the client's alert, if it sent one
                return false;
            }
        }
        return false;
    }
    long verifyResult() const { return SSL_get_verify_result(m_ssl); }
    std::string alpn() const {
        const unsigned char* data = nullptr;
        unsigned int length = 0;
        SSL_get0_alpn_selected(m_ssl, &data, &length);
        return std::string(reinterpret_cast<const char*>(data), length);
    }
    std::string write(const std::string& plaintext) {
        SSL_write(m_ssl, plaintext.data(), int(plaintext.size()));
        return take();
    }
    std::string read(const std::string& ciphertext) {
        give(ciphertext);
        std::string plaintext;
        char buffer[4096];
        int n = 0;
        while ((n = SSL_read(m_ssl, buffer, sizeof buffer)) > 0)
            plaintext.append(buffer, std::size_t(n));
        return plaintext;
    }

private:
    std::string take() {
        char* data = nullptr;
        const long length = BIO_get_mem_data(m_out, &data);
        std::string bytes(data, std::size_t(length > 0 ? length : 0));
        (void)BIO_reset(m_out);
        return bytes;
    }
    void give(const std::string& bytes) {
        if (!bytes.empty())
            BIO_write(m_in, bytes.data(), int(bytes.size()));
    }

    SSL_CTX* m_context;
    SSL* m_ssl = nullptr;
    BIO* m_in = nullptr;
    BIO* m_out = nullptr;
};

} // namespace

class TestTaskAuthority : public QObject {
    Q_OBJECT

private slots:
    void aClientThatTrustsTheTaskSpeaksHttpThroughTheSession_data();
    void aClientThatTrustsTheTaskSpeaksHttpThroughTheSession();
    void aCertificateForAnotherNameIsWorthless();
    void aClientThatDoesNotTrustTheAuthorityEndsTheSession();
    void bytesThatAreNotTlsEndTheSession();
    void eachTaskHasItsOwnAuthority();
};

void TestTaskAuthority::aClientThatTrustsTheTaskSpeaksHttpThroughTheSession_data() {
    QTest::addColumn<QString>("host");
    QTest::newRow("a bound name") << "api.example.com";
    QTest::newRow("under a bound wildcard") << "a.b.example.org";
}

void TestTaskAuthority::aClientThatTrustsTheTaskSpeaksHttpThroughTheSession() {
    QFETCH(QString, host);
    auto authority = TaskAuthority::create(boundHosts());
    QVERIFY2(authority, authority ? "" : authority.error().message.c_str());
    auto context = (*authority)->serverContext(host.toStdString());
    QVERIFY(context);
    QCOMPARE(*(*authority)->serverContext(host.toStdString()), *context); // made once per host
    TlsServerSession server(*context);
    Client client((*authority)->certificatePem(), host.toStdString());
    std::string error;
    QVERIFY2(client.handshake(server, &error), error.c_str());
    QCOMPARE(client.verifyResult(), long(X509_V_OK));
    QCOMPARE(client.alpn(), std::string("http/1.1"));
    const auto request = server.receive(client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    QVERIFY(request);
    QCOMPARE(*request, std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    QVERIFY(server.send("HTTP/1.1 204 No Content\r\n\r\n"));
    QCOMPARE(client.read(server.takeOutput()), std::string("HTTP/1.1 204 No Content\r\n\r\n"));
}

// Even with the authority trusted, a certificate it issued for a name outside its constraints fails.
void TestTaskAuthority::aCertificateForAnotherNameIsWorthless() {
    auto authority = TaskAuthority::create(boundHosts());
    QVERIFY(authority);
    for (const std::string host : {"evil.test", "example.org.evil.net", "api.example.com.evil.net"}) {
        auto context = (*authority)->serverContext(host);
        QVERIFY(context);
        TlsServerSession server(*context);
        Client client((*authority)->certificatePem(), host);
        std::string error;
        QVERIFY2(!client.handshake(server, &error), host.c_str());
        QCOMPARE(client.verifyResult(), long(X509_V_ERR_PERMITTED_VIOLATION));
    }
}

void TestTaskAuthority::aClientThatDoesNotTrustTheAuthorityEndsTheSession() {
    auto authority = TaskAuthority::create(boundHosts());
    QVERIFY(authority);
    TlsServerSession server(*(*authority)->serverContext("api.example.com"));
    Client client("", "api.example.com");
    std::string error;
    QVERIFY(!client.handshake(server, &error));
    QVERIFY(!server.established());
}

void TestTaskAuthority::bytesThatAreNotTlsEndTheSession() {
    auto authority = TaskAuthority::create(boundHosts());
    QVERIFY(authority);
    TlsServerSession server(*(*authority)->serverContext("api.example.com"));
    const auto received = server.receive("GET / HTTP/1.1\r\nHost: api.example.com\r\n\r\n");
    QVERIFY(!received);
    QVERIFY2(received.error().message.find("the TLS handshake failed") == 0, received.error().message.c_str());
}

// Another task's authority vouches for nothing of this one's.
void TestTaskAuthority::eachTaskHasItsOwnAuthority() {
    auto mine = TaskAuthority::create(boundHosts());
    auto theirs = TaskAuthority::create(boundHosts());
    QVERIFY(mine && theirs);
    QVERIFY((*mine)->certificatePem() != (*theirs)->certificatePem());
    TlsServerSession server(*(*theirs)->serverContext("api.example.com"));
    Client client((*mine)->certificatePem(), "api.example.com");
    std::string error;
    QVERIFY(!client.handshake(server, &error));
}

QTEST_GUILESS_MAIN(TestTaskAuthority)
#include "tst_task_authority.moc"
