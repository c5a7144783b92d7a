#include "server/http/TlsFiles.h"

#include <QFile>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

namespace warren::http {

namespace {

Result<QByteArray> readPem(const QString& path, const char* what) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return makeError(ErrorCode::NotFound, QStringLiteral("Cannot read the TLS %1 %2: %3.")
                                                  .arg(QLatin1String(what), path, file.errorString())
                                                  .toStdString());
    }
    return file.readAll();
}

QString reason(int gnutlsError) {
    QString text = QString::fromUtf8(gnutls_strerror(gnutlsError));
    while (text.endsWith('.'))
        text.chop(1);
    return text;
}

gnutls_datum_t datum(const QByteArray& bytes) {
    return {reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.constData())),
            static_cast<unsigned>(bytes.size())};
}

} // namespace

Result<TlsPem> loadTlsFiles(const TlsFiles& files) {
    auto certificate = readPem(files.certificate, "certificate");
    if (!certificate)
        return certificate.error();
    auto key = readPem(files.key, "key");
    if (!key)
        return key.error();

    // The certificate alone first: GnuTLS 3.7 leaks on the pair's error path when the certificate is bad.
    const gnutls_datum_t certificateData = datum(*certificate);
    gnutls_x509_crt_t* chain = nullptr;
    unsigned int chainLength = 0;
    const int imported =
        gnutls_x509_crt_list_import2(&chain, &chainLength, &certificateData, GNUTLS_X509_FMT_PEM, 0);
    if (imported < 0) {
        return makeError(ErrorCode::InvalidArgument,
                         QStringLiteral("The TLS certificate %1 is not a PEM certificate: %2.")
                             .arg(files.certificate, reason(imported))
                             .toStdString());
    }
    for (unsigned int i = 0; i < chainLength; ++i)
        gnutls_x509_crt_deinit(chain[i]);
    gnutls_free(chain);

    gnutls_certificate_credentials_t credentials = nullptr;
    if (gnutls_certificate_allocate_credentials(&credentials) < 0)
        return makeError(ErrorCode::System, "GnuTLS could not allocate credentials.");
    const gnutls_datum_t keyData = datum(*key);
    const int loaded =
        gnutls_certificate_set_x509_key_mem(credentials, &certificateData, &keyData, GNUTLS_X509_FMT_PEM);
    gnutls_certificate_free_credentials(credentials);
    if (loaded < 0) {
        return makeError(ErrorCode::InvalidArgument,
                         QStringLiteral("The TLS certificate %1 and key %2 do not load together: %3.")
                             .arg(files.certificate, files.key, reason(loaded))
                             .toStdString());
    }
    return TlsPem{std::move(*certificate), std::move(*key)};
}

} // namespace warren::http
