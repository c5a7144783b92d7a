#include "server/http/ClientAddressKey.h"

#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>

namespace warren::http {

namespace {

QByteArray ipv4Key(const unsigned char* bytes) {
    return QByteArray("4:") + QByteArray(reinterpret_cast<const char*>(bytes), 4);
}

QByteArray ipv6Key(const unsigned char* bytes) {
    static const unsigned char mappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(bytes, mappedPrefix, sizeof mappedPrefix) == 0)
        return ipv4Key(bytes + 12);
    return QByteArray("6:") + QByteArray(reinterpret_cast<const char*>(bytes), 8); // the /64
}

} // namespace

QByteArray clientAddressKey(const sockaddr* address) {
    if (!address)
        return {};
    if (address->sa_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(address);
        return ipv4Key(reinterpret_cast<const unsigned char*>(&in->sin_addr.s_addr));
    }
    if (address->sa_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
        return ipv6Key(in6->sin6_addr.s6_addr);
    }
    return {};
}

QByteArray clientAddressKey(const QHostAddress& address) {
    bool ok = false;
    if (const quint32 ipv4 = address.toIPv4Address(&ok);
        ok && address.protocol() == QAbstractSocket::IPv4Protocol) {
        const unsigned char bytes[4] = {
            static_cast<unsigned char>(ipv4 >> 24), static_cast<unsigned char>(ipv4 >> 16),
            static_cast<unsigned char>(ipv4 >> 8), static_cast<unsigned char>(ipv4)};
        return ipv4Key(bytes);
    }
    if (address.protocol() == QAbstractSocket::IPv6Protocol) {
        const Q_IPV6ADDR ipv6 = address.toIPv6Address();
        return ipv6Key(ipv6.c);
    }
    return {};
}

} // namespace warren::http
