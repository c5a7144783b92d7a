#include "TlsFiles.h"

#include <QFile>
#include <gnutls/gnutls.h>

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

    gnutls_certificate_credentials_t credentials = nullptr;
    if (gnutls_certificate_allocate_credentials(&credentials) < 0)
        return makeError(ErrorCode::System, "GnuTLS could not allocate credentials.");
    const gnutls_datum_t certificateData = datum(*certificate);
    const gnutls_datum_t keyData = datum(*key);
    const int loaded =
        gnutls_certificate_set_x509_key_mem(credentials, &certificateData, &keyData, GNUTLS_X509_FMT_PEM);
    gnutls_certificate_free_credentials(credentials);
    if (loaded < 0) {
        return makeError(ErrorCode::InvalidArgument,
                         QStringLiteral("The TLS certificate %1 and key %2 do not load together: %3.")
                             .arg(files.certificate, files.key, QString::fromUtf8(gnutls_strerror(loaded)))
                             .toStdString());
    }
    return TlsPem{std::move(*certificate), std::move(*key)};
}

} // namespace warren::http
