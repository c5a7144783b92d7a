#pragma once
// A self-signed certificate and its key, made by the openssl command, for name (a DNS name or an IPv4
// address, in the subject and the subjectAltName): what a test's TLS server presents.

#include <QHostAddress>
#include <QProcess>
#include <QStandardPaths>
#include <QString>

namespace warren::test {

inline bool makeSelfSignedCertificate(const QString& name, const QString& certificate, const QString& key) {
    const QString alternative = (QHostAddress(name).isNull() ? "DNS:" : "IP:") + name;
    QProcess make;
    make.start(QStandardPaths::findExecutable("openssl"),
               {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=" + name, "-addext",
                "subjectAltName=" + alternative, "-keyout", key, "-out", certificate});
    return make.waitForFinished(60000) && make.exitStatus() == QProcess::NormalExit && make.exitCode() == 0;
}

} // namespace warren::test
