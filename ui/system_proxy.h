// The proxy the desktop's settings name for a URL, as a proxy URL the downloader (libcurl, in the
// Qt-free core) takes: Qt reads the system's configuration (on Linux through libproxy: GNOME's
// and KDE's settings, PAC files, the environment) and this turns its answer into a string.
#pragma once

#include <QNetworkProxy>
#include <QString>

namespace hearsay::ui {

// "http://[user:password@]host:port" for an HTTP proxy, "socks5h://..." for SOCKS 5 (names
// resolved by the proxy); empty for no proxy or one libcurl cannot use (FTP caching proxies).
QString proxyUrl(const QNetworkProxy& proxy);

// The first usable proxy the system names for `url`; empty when it names none (the downloader
// then falls back to the environment's http_proxy / https_proxy, as before).
QString systemProxyUrl(const QString& url);

} // namespace hearsay::ui
