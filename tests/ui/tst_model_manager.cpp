// The model manager dialog against a Hugging Face-like server on loopback: the catalog and the
// found models are listed, a download runs off the GUI thread with progress and ends installed,
// Open emits the installed path, Cancel keeps the partial file and shows why, Remove empties the
// models directory, a failed download says what went wrong. The dialog does no disk work itself:
// scans and removals answer by signal, and the tests wait for them (settled()).
#include "core/hub_test_server.h"

#include "core/hub/sha256.h"
#include "core/model/test_model.h"
#include "ui/model_manager_dialog.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace hearsay;
namespace fs = std::filesystem;

class TestModelManager : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_ggml;
    std::vector<hub::CatalogEntry> m_entries;

    fs::path root() const { return m_tmp.path().toStdString(); }

    // Every scan and removal asked for has answered and been painted.
    static bool settled(ui::ModelManagerDialog& dialog) {
        if (dialog.diskWorkPending()) {
            QSignalSpy refreshed(&dialog, &ui::ModelManagerDialog::refreshed);
            while (dialog.diskWorkPending())
                if (!refreshed.wait(20000)) return false;
        }
        return true;
    }

private slots:
    void initTestCase() {
        // Nothing of the user's own disk: the scan's usual places point into the temporary dir.
        qputenv("HOME", m_tmp.path().toUtf8());
        qunsetenv("XDG_CACHE_HOME");
        qunsetenv("HF_HOME");
        qunsetenv("HF_HUB_CACHE");
        qunsetenv("HF_TOKEN");
        TestModelOptions o;
        o.dims = "64x2x2";
        o.seed = 3;
        o.format = ModelFormat::Ggml;
        o.dtype = DType::F16;
        o.vocabularyFile = fs::path(HEARSAY_SHARED_DATA_DIR) / "ggml-vocab-tiny.bin";
        QVERIFY(makeTestModel(o, root() / "source.bin").ok());
        std::ifstream in(root() / "source.bin", std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        m_ggml = s.str();
        hub::CatalogEntry e;
        e.name = "test-small";
        e.format = ModelFormat::Ggml;
        e.repo = "hearsay-test/ggml";
        e.files.push_back({"ggml-test-small.bin", m_ggml.size(), hub::sha256Hex(m_ggml), false});
        e.diskBytes = m_ggml.size();
        m_entries = {e};
        e.name = "test-missing";
        e.files = {{"ggml-test-missing.bin", 0, "", false}};
        e.revision = "0123456789abcdef0123456789abcdef01234567";  // a pinned commit
        m_entries.push_back(e);
    }

    void downloadOpenRemove() {
        HubTestServer server;
        server.add("hearsay-test/ggml", "ggml-test-small.bin", {m_ggml});
        const QString models = m_tmp.path() + "/models";
        ui::ModelManagerDialog dialog(nullptr, m_entries, models, QString::fromStdString(server.baseUrl()));
        QVERIFY(settled(dialog));
        QCOMPARE(dialog.catalogTable()->rowCount(), 2);
        QCOMPARE(dialog.catalogTable()->item(0, 0)->text(), QString("test-small"));
        QCOMPARE(dialog.catalogTable()->item(0, 8)->text(), QString());
        // The revision: "main!" and why where no commit is pinned, the commit's first digits where one is.
        QCOMPARE(dialog.catalogTable()->item(0, 3)->text(), QString("main!"));
        QVERIFY(dialog.catalogTable()->item(0, 3)->toolTip().contains("No commit pinned"));
        QCOMPARE(dialog.catalogTable()->item(1, 3)->text(), QString("01234567"));
        QVERIFY(dialog.catalogTable()->item(1, 3)->toolTip().contains("0123456789abcdef0123456789abcdef01234567"));
        QCOMPARE(dialog.foundTable()->rowCount(), 0);

        QSignalSpy ended(&dialog, &ui::ModelManagerDialog::downloadEnded);
        dialog.selectCatalogRow(0);
        dialog.downloadSelected();
        QVERIFY(dialog.downloading());
        QVERIFY(ended.wait(20000));
        QCOMPARE(ended.first().first().toBool(), true);
        QVERIFY(settled(dialog));
        QCOMPARE(dialog.catalogTable()->item(0, 8)->text(), QString("installed"));
        QVERIFY2(dialog.statusText().contains("Installed"), qPrintable(dialog.statusText()));
        // The models directory is scanned too: the new model is listed as found.
        QCOMPARE(dialog.foundTable()->rowCount(), 1);

        QSignalSpy chosen(&dialog, &ui::ModelManagerDialog::modelChosen);
        dialog.selectCatalogRow(0);
        dialog.openSelected();
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.first().first().toString(), models + "/ggml-test-small.bin");

        dialog.selectCatalogRow(0);
        dialog.removeSelected();
        QVERIFY(settled(dialog));
        QVERIFY2(dialog.statusText().startsWith("Removed"), qPrintable(dialog.statusText()));
        QCOMPARE(dialog.catalogTable()->item(0, 8)->text(), QString());
        QVERIFY(!fs::exists(fs::path(models.toStdString()) / "ggml-test-small.bin"));
    }

    // A saved token the hub refuses (expired) on a public repository: the model is installed
    // without it, and the status says so when the download ends.
    void expiredTokenWarned() {
        HubTestServer server;
        server.add("hearsay-test/ggml", "ggml-test-small.bin", {m_ggml});
        qputenv("HF_TOKEN", "hf_expired");
        ui::ModelManagerDialog dialog(nullptr, m_entries, m_tmp.path() + "/models-token",
                                      QString::fromStdString(server.baseUrl()));
        QSignalSpy ended(&dialog, &ui::ModelManagerDialog::downloadEnded);
        dialog.selectCatalogRow(0);
        dialog.downloadSelected();
        QVERIFY(ended.wait(20000));
        qunsetenv("HF_TOKEN");
        QVERIFY(settled(dialog));
        QCOMPARE(ended.first().first().toBool(), true);
        QVERIFY2(dialog.statusText().startsWith("Installed") &&
                     dialog.statusText().contains("Warning: your saved hub token was refused (expired?)"),
                 qPrintable(dialog.statusText()));
        QCOMPARE(server.requests().front().authorization, std::string("Bearer hf_expired"));
    }

    // A folder the user adds is scanned: its model is listed as found, and Open chooses it. The
    // scan runs off the GUI thread: setUserFolders returns before its answer is painted.
    void userFolderScanned() {
        const fs::path folder = root() / "my-models";
        fs::create_directories(folder);
        fs::copy_file(root() / "source.bin", folder / "ggml-mine.bin");
        ui::ModelManagerDialog dialog(nullptr, m_entries, m_tmp.path() + "/models-folders");
        QVERIFY(settled(dialog));
        QCOMPARE(dialog.foundTable()->rowCount(), 0);
        dialog.setUserFolders({QString::fromStdString(folder.string())});
        QVERIFY(dialog.diskWorkPending());
        QCOMPARE(dialog.foundTable()->rowCount(), 0);  // not yet: the answer comes by signal
        QVERIFY(settled(dialog));
        QCOMPARE(dialog.foundTable()->rowCount(), 1);
        QCOMPARE(dialog.foundTable()->item(0, 4)->text(), QString::fromStdString((folder / "ggml-mine.bin").string()));
        QSignalSpy chosen(&dialog, &ui::ModelManagerDialog::modelChosen);
        dialog.selectFoundRow(0);
        dialog.openSelected();
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.first().first().toString(), QString::fromStdString((folder / "ggml-mine.bin").string()));
    }

    void failedDownloadSaysWhy() {
        HubTestServer server;  // serves nothing: the repository does not exist (401 RepoNotFound, as the hub)
        ui::ModelManagerDialog dialog(nullptr, m_entries, m_tmp.path() + "/models-404",
                                      QString::fromStdString(server.baseUrl()));
        QSignalSpy ended(&dialog, &ui::ModelManagerDialog::downloadEnded);
        dialog.selectCatalogRow(1);
        dialog.downloadSelected();
        QVERIFY(ended.wait(20000));
        QCOMPARE(ended.first().first().toBool(), false);
        QVERIFY(settled(dialog));
        QVERIFY2(dialog.statusText().startsWith("Download failed:") && dialog.statusText().contains("does not exist on the hub"),
                 qPrintable(dialog.statusText()));
        QCOMPARE(dialog.catalogTable()->item(1, 8)->text(), QString());
    }

    void cancelKeepsPartial() {
        HubTestServer server;
        HubTestServer::Route slow{m_ggml};
        // Every transfer stops after a quarter (three attempts, then it gives up); cancel comes
        // first or the cuts do.
        slow.cutAfter = m_ggml.size() / 4;
        slow.cuts = 3;
        server.add("hearsay-test/ggml", "ggml-test-small.bin", slow);
        const QString models = m_tmp.path() + "/models-cancel";
        ui::ModelManagerDialog dialog(nullptr, m_entries, models, QString::fromStdString(server.baseUrl()));
        QSignalSpy ended(&dialog, &ui::ModelManagerDialog::downloadEnded);
        dialog.selectCatalogRow(0);
        dialog.downloadSelected();
        dialog.cancelDownload();
        QVERIFY(ended.wait(20000));
        QCOMPARE(ended.first().first().toBool(), false);
        QVERIFY(settled(dialog));
        QVERIFY2(dialog.statusText().startsWith("Cancelled.") || dialog.statusText().contains("was cut after"),
                 qPrintable(dialog.statusText()));
        QVERIFY(!fs::exists(fs::path(models.toStdString()) / "ggml-test-small.bin"));
        QCOMPARE(dialog.foundTable()->rowCount(), 0);  // the partial file is not offered
    }
};

QTEST_MAIN(TestModelManager)
#include "tst_model_manager.moc"
