// The desktop's proxy settings in the GUI's download path (ui/system_proxy.h): Qt's proxies as
// the URLs libcurl takes, the system's answer for a URL (here from the environment, which Qt
// and libproxy read when no desktop session names one), and the model manager's worker
// downloading through that proxy from a hub whose own name does not resolve: the loopback hub
// (tests/core/hub_test_server.h) doubles as the proxy.
#include "core/hub_test_server.h"

#include "core/hub/model_catalog.h"
#include "core/hub/sha256.h"
#include "core/model/test_model.h"
#include "ui/model_download_worker.h"
#include "ui/system_proxy.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace hearsay;
namespace fs = std::filesystem;

namespace {

void clearProxyEnvironment() {
    for (const char* name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                             "no_proxy", "NO_PROXY"})
        qunsetenv(name);
}

} // namespace

class TestSystemProxy : public QObject {
    Q_OBJECT

private slots:
    void init() { clearProxyEnvironment(); }
    void cleanup() { clearProxyEnvironment(); }

    void proxyUrls_data() {
        QTest::addColumn<QNetworkProxy>("proxy");
        QTest::addColumn<QString>("url");
        QTest::newRow("http") << QNetworkProxy(QNetworkProxy::HttpProxy, "proxy.example", 3128)
                              << "http://proxy.example:3128";
        QTest::newRow("socks5") << QNetworkProxy(QNetworkProxy::Socks5Proxy, "socks.example", 1080)
                                << "socks5h://socks.example:1080";
        QTest::newRow("credentials") << QNetworkProxy(QNetworkProxy::HttpProxy, "proxy.example", 8080, "me", "p@ss word")
                                     << "http://me:p%40ss%20word@proxy.example:8080";
        QTest::newRow("no proxy") << QNetworkProxy(QNetworkProxy::NoProxy) << "";
        QTest::newRow("caching only") << QNetworkProxy(QNetworkProxy::HttpCachingProxy, "cache.example", 3128) << "";
    }
    void proxyUrls() {
        QFETCH(QNetworkProxy, proxy);
        QFETCH(QString, url);
        QCOMPARE(ui::proxyUrl(proxy), url);
    }

    void systemProxyFromTheEnvironment() {
        QCOMPARE(ui::systemProxyUrl("http://hub.example/x"), QString());  // none configured
        qputenv("http_proxy", "http://127.0.0.1:3128");
        QCOMPARE(ui::systemProxyUrl("http://hub.example/x"), QString("http://127.0.0.1:3128"));
    }

    // The worker asks the system for the hub's proxy and passes it to the Qt-free downloader.
    void workerDownloadsThroughTheSystemProxy() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path dir = tmp.path().toStdString();
        TestModelOptions m;
        m.dims = "64x2x2";
        m.seed = 5;
        m.format = ModelFormat::Ggml;
        m.dtype = DType::F16;
        m.vocabularyFile = fs::path(HEARSAY_SHARED_DATA_DIR) / "ggml-vocab-tiny.bin";
        auto made = makeTestModel(m, dir / "source.bin");
        QVERIFY2(made.ok(), made.ok() ? "" : made.message().c_str());
        std::stringstream bytes;
        bytes << std::ifstream(dir / "source.bin", std::ios::binary).rdbuf();
        const std::string body = bytes.str();

        hub::CatalogEntry e;
        e.name = "proxied";
        e.size = "64x2x2";
        e.format = ModelFormat::Ggml;
        e.repo = "hearsay-test/ggml";
        e.files.push_back({"ggml-proxied.bin", body.size(), hub::sha256Hex(body), false});
        e.diskBytes = body.size();
        HubTestServer proxy;
        proxy.add(e.repo, e.files[0].path, {body});
        qputenv("http_proxy", QByteArray::fromStdString(proxy.baseUrl()));
        // (libcurl reads http_proxy too: this shows the path end to end, the rows above and
        // core.model_hub_transport's "from the caller" row show each half.)
        QCOMPARE(ui::systemProxyUrl("http://hub.invalid"), QString::fromStdString(proxy.baseUrl()));

        ui::ModelDownloadWorker worker({e});
        QSignalSpy finished(&worker, &ui::ModelDownloadWorker::finished);
        QSignalSpy failed(&worker, &ui::ModelDownloadWorker::failed);
        worker.download({0, QString::fromStdString((dir / "models").string()), "http://hub.invalid", nullptr});
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        QCOMPARE(finished.size(), 1);
        const auto seen = proxy.requests();
        QVERIFY(!seen.empty());
        for (const auto& r : seen) QVERIFY(r.proxied);
    }
};

QTEST_MAIN(TestSystemProxy)
#include "tst_system_proxy.moc"
