#include "ui/system_proxy.h"

#include <QNetworkProxyFactory>
#include <QNetworkProxyQuery>
#include <QUrl>

namespace hearsay::ui {

QString proxyUrl(const QNetworkProxy& proxy) {
    QUrl url;
    switch (proxy.type()) {
    case QNetworkProxy::HttpProxy: url.setScheme("http"); break;
    case QNetworkProxy::Socks5Proxy: url.setScheme("socks5h"); break;
    default: return {};  // NoProxy, DefaultProxy, caching-only proxies
    }
    if (proxy.hostName().isEmpty()) return {};
    url.setHost(proxy.hostName());
    url.setPort(proxy.port() ? int(proxy.port()) : (proxy.type() == QNetworkProxy::HttpProxy ? 8080 : 1080));
    if (!proxy.user().isEmpty()) {
        url.setUserName(proxy.user());
        url.setPassword(proxy.password());
    }
    return url.toString(QUrl::FullyEncoded);
}

QString systemProxyUrl(const QString& url) {
    const auto proxies = QNetworkProxyFactory::systemProxyForQuery(QNetworkProxyQuery(QUrl(url)));
    for (const QNetworkProxy& p : proxies)
        if (const QString s = proxyUrl(p); !s.isEmpty()) return s;
    return {};
}

} // namespace hearsay::ui
