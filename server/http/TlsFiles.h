#pragma once
// The certificate and key warrend serves TLS with (PEM files), and their check before the daemon starts:
// an unreadable file or a key that is not the certificate's is an error that says which, not a crash.

#include "common/Result.h"

#include <QByteArray>
#include <QString>

namespace warren::http {

struct TlsFiles {
    QString certificate; // PEM: the server's certificate, then any intermediates
    QString key;         // PEM: its private key, unencrypted
};

struct TlsPem {
    QByteArray certificate;
    QByteArray key;
};

// Reads both files and has GnuTLS load them as one credential, as libmicrohttpd will.
Result<TlsPem> loadTlsFiles(const TlsFiles& files);

} // namespace warren::http
