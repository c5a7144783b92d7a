#pragma once
// Which connections count as one client for the per-client connection limit. An IPv4 address is one
// client; an IPv6 client is its /64, because a single host is routinely given a whole /64 (SLAAC, privacy
// addresses) and can take any address in it, so counting per address would give it 2^64 allowances. An
// IPv4-mapped IPv6 address (::ffff:a.b.c.d, a dual-stack socket) is the IPv4 client it maps.

#include <QByteArray>
#include <QHostAddress>

struct sockaddr;

namespace warren::http {

// A key equal for two addresses exactly when they are the same client; empty for an address that is
// neither IPv4 nor IPv6 (not counted).
QByteArray clientAddressKey(const sockaddr* address);
QByteArray clientAddressKey(const QHostAddress& address);

} // namespace warren::http
