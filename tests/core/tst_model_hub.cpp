// The model manager (core/hub): the catalog, its pins (every entry at a commit, "main" only where
// marked; tiny.en's and base's sizes and hashes against the real files) and the hub URLs it
// forms, SHA-256, the scan of a fake Hugging Face cache, and every download case against a
// Hugging Face-like server on loopback (hub_test_server.h): a random-weight ggml model and the
// real tiny.en CTranslate2 fixture loaded after download; offline, DNS failure, 404, 401/403,
// 500, a cut connection then resumed, wrong bytes, a full disk, permission denied, cancel; and the
// real hub's ways: 416 past the end, a server ignoring Range, a pinned file changed on the hub,
// the attempt cap, an expired token, a missing repository or revision, 302 to a CDN and 307 for a
// renamed repository, pinned commits and one commit per model, HF_ENDPOINT; a libcurl that cannot be
// loaded or is not one. HTTPS and proxies: tst_model_hub_transport.cpp. Real hub URLs are not
// reachable here: their forming is tested, the transfers are local.
#include "hub_test_server.h"
#include "real_models.h"

#include "core/hub/hub_paths.h"
#include "core/hub/model_catalog.h"
#include "core/hub/model_download.h"
#include "core/hub/model_scan.h"
#include "core/hub/sha256.h"
#include "core/model/test_model.h"
#include "core/model/whisper_model.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace hearsay;
using namespace hearsay::hub;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeAll(const fs::path& p, const std::string& bytes) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
}

// Visible entries of a directory (what the scan and the user see).
[[maybe_unused]] std::vector<std::string> visible(const fs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with(".") && !name.ends_with(".part")) out.push_back(name);
    }
    return out;
}

// A small random-weight model (64 wide, 2 layers) in `format`, at `out`.
void makeSmallModel(ModelFormat format, const fs::path& out) {
    TestModelOptions o;
    o.dims = "64x2x2";
    o.seed = 7;
    o.format = format;
    o.dtype = DType::F16;
    o.vocabularyFile = fs::path(HEARSAY_SHARED_DATA_DIR) / "ggml-vocab-tiny.bin";
    auto r = makeTestModel(o, out);
    QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
}

[[maybe_unused]] CatalogEntry ggmlTestEntry(const std::string& body, bool withHash = true) {
    CatalogEntry e;
    e.name = "test-small";
    e.size = "64x2x2";
    e.format = ModelFormat::Ggml;
    e.repo = "hearsay-test/ggml";
    e.files.push_back({"ggml-test-small.bin", body.size(), withHash ? sha256Hex(body) : "", false});
    e.diskBytes = body.size();
    return e;
}

} // namespace

class TestModelHub : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_ggml;  // a random-weight ggml model's bytes
    fs::path root() const { return m_tmp.path().toStdString(); }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        makeSmallModel(ModelFormat::Ggml, root() / "source.bin");
        m_ggml = readAll(root() / "source.bin");
        QVERIFY(m_ggml.size() > 1000000);
    }

    void sha256KnownVectors() {
        QCOMPARE(sha256Hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        // Fed in odd pieces (as a download arrives): a million 'a', FIPS 180-2's long vector.
        Sha256 h;
        const std::string text(1000000, 'a');
        for (size_t i = 0; i < text.size(); i += 4099) h.update(text.data() + i, std::min<size_t>(4099, text.size() - i));
        QCOMPARE(h.hexDigest(), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
        QCOMPARE(sha256Hex(text), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
        // A file, streamed.
        const fs::path file = root() / "million-a.txt";
        writeAll(file, text);
        auto fromFile = sha256OfFile(file);
        QVERIFY2(fromFile.ok(), fromFile.ok() ? "" : fromFile.message().c_str());
        QCOMPARE(fromFile.value(), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
        QVERIFY(!sha256OfFile(root() / "no-such-file").ok());
    }

    void catalogEntriesAndUrls() {
        // Every catalogued size, in the three formats where published.
        for (const char* name : {"tiny", "tiny.en", "base", "base.en", "small", "small.en", "medium", "medium.en",
                                 "large-v3", "large-v3-turbo", "distil-large-v3", "distil-large-v3.5"}) {
            QVERIFY2(findCatalogEntry(name, ModelFormat::CTranslate2), name);
            QVERIFY2(findCatalogEntry(name, ModelFormat::HuggingFace), name);
        }
        for (const char* name : {"tiny.en", "base-q5_1", "small.en-q8_0", "medium-q5_0", "large-v3-turbo-q8_0",
                                 "large-v3", "distil-large-v3"})
            QVERIFY2(findCatalogEntry(name, ModelFormat::Ggml), name);
        for (const auto& e : catalog()) {
            QVERIFY(!e.files.empty());
            QVERIFY(e.parametersMillions > 0 && e.diskBytes > 0 && e.memoryBytes > e.diskBytes / 2);
            for (const auto& f : e.files) QVERIFY(f.sha256.empty() || f.sha256.size() == 64);
        }
        // Without a format: CTranslate2 first; quantised names are ggml.
        QCOMPARE(findCatalogEntry("tiny.en")->format, ModelFormat::CTranslate2);
        QCOMPARE(findCatalogEntry("tiny.en-q5_1")->format, ModelFormat::Ggml);
        QVERIFY(!findCatalogEntry("tiny.en-q5_1", ModelFormat::HuggingFace));
        QVERIFY(!findCatalogEntry("huge"));

        const CatalogEntry& ct2 = *findCatalogEntry("tiny.en", ModelFormat::CTranslate2);
        QCOMPARE(hubFileUrl("https://huggingface.co/", ct2, ct2.files[1]),
                 std::string("https://huggingface.co/Systran/faster-whisper-tiny.en/resolve/"
                             "0d3d19a32d3338f10357c0889762bd8d64bbdeba/model.bin"));
        const CatalogEntry& ggml = *findCatalogEntry("base.en-q5_1");
        QCOMPARE(hubFileUrl("http://mirror.local/hf", ggml, ggml.files[0]),
                 std::string("http://mirror.local/hf/ggerganov/whisper.cpp/resolve/"
                             "5359861c739e955e79d9a303bcbc70fb988958b1/ggml-base.en-q5_1.bin"));
        QCOMPARE(ggml.installName(), std::string("ggml-base.en-q5_1.bin"));
        QCOMPARE(ct2.installName(), std::string("tiny.en-ct2"));

        // Pins: every entry at a full commit, the one its sizes and hashes are from; "main" only
        // where the commit is not known, and then marked (pinned() is false): the four English
        // Hugging Face checkpoints and distil-large-v3.5's.
        const std::vector<std::string> unpinned = {"openai/whisper-tiny.en", "openai/whisper-base.en",
                                                   "openai/whisper-small.en", "openai/whisper-medium.en",
                                                   "distil-whisper/distil-large-v3.5"};
        for (const auto& e : catalog()) {
            QVERIFY2(!e.revision.empty(), e.repo.c_str());
            const bool known = std::find(unpinned.begin(), unpinned.end(), e.repo) == unpinned.end();
            QVERIFY2(e.pinned() == known, e.repo.c_str());
            if (!known) QCOMPARE(e.revision, std::string("main"));
            // A CTranslate2 directory: every file's size at its commit, so its disk size is exact;
            // every hash too, but for distil-large-v3.5-ct2's small files (sizes only).
            if (e.format == ModelFormat::CTranslate2) {
                QVERIFY2(e.sizesKnown(), e.repo.c_str());
                uint64_t sum = 0;
                for (const auto& f : e.files) sum += f.bytes;
                QCOMPARE(e.diskBytes, sum);
                if (e.repo != "distil-whisper/distil-large-v3.5-ct2") QVERIFY2(e.hashesKnown(), e.repo.c_str());
            }
            // A pinned Hugging Face checkpoint: its weights' size and hash at least.
            if (e.format == ModelFormat::HuggingFace && e.pinned() && e.repo != "distil-whisper/distil-large-v3")
                for (const auto& f : e.files)
                    if (f.path == "model.safetensors") QVERIFY2(f.bytes > 0 && f.sha256.size() == 64, e.repo.c_str());
            if (e.repo == "ggerganov/whisper.cpp") {
                QCOMPARE(e.revision, std::string("5359861c739e955e79d9a303bcbc70fb988958b1"));
                QVERIFY2(e.files[0].bytes > 0 && e.files[0].sha256.size() == 64, e.name.c_str());
            }
            if (e.format == ModelFormat::Ggml && e.revision != "main") QVERIFY2(e.files[0].bytes > 0, e.name.c_str());
            QVERIFY2(e.repo != "mobiuslabsgmbh/faster-whisper-large-v3-turbo", "moved to dropbox-dash");
        }
        QCOMPARE(findCatalogEntry("large-v3-turbo", ModelFormat::CTranslate2)->repo,
                 std::string("dropbox-dash/faster-whisper-large-v3-turbo"));
        const CatalogEntry& distil = *findCatalogEntry("distil-large-v3", ModelFormat::Ggml);
        QCOMPARE(distil.revision, std::string("0d78dd96ed9fc152325f63b53788fec3b43de031"));
        QCOMPARE(distil.files[0].bytes, uint64_t(1'519'521'155));
        QVERIFY(distil.files[0].sha256.starts_with("2883a11b90fb"));
        const CatalogEntry* distil35 = findCatalogEntry("distil-large-v3.5", ModelFormat::Ggml);
        QVERIFY(distil35);
        QCOMPARE(distil35->repo, std::string("distil-whisper/distil-large-v3.5-ggml"));
        QCOMPARE(distil35->files[0].path, std::string("ggml-model.bin"));
        QCOMPARE(distil35->revision, std::string("960ecb5c2ecfba3ebb9ebe485c1032ec266cf436"));
        QCOMPARE(distil35->files[0].bytes, uint64_t(1'519'521'155));
        QCOMPARE(distil35->installName(), std::string("ggml-distil-large-v3.5.bin"));
        // Another revision is the user's choice; the pins do not hold there.
        const CatalogEntry atMain = ggml.atRevision("main");
        QCOMPARE(atMain.revision, std::string("main"));
        QCOMPARE(atMain.files[0].bytes, uint64_t(0));
        QVERIFY(atMain.files[0].sha256.empty());
        QCOMPARE(ggml.atRevision(ggml.revision).files[0].bytes, ggml.files[0].bytes);

        // Precedence: --hub-url, HEARSAY_HUB_URL, HF_ENDPOINT, huggingface.co.
        qputenv("HF_ENDPOINT", "http://endpoint.example");
        QCOMPARE(hubBaseUrl(), std::string("http://endpoint.example"));
        QCOMPARE(hubBaseUrlSource(), std::string("HF_ENDPOINT"));
        qputenv("HEARSAY_HUB_URL", "http://mirror.example");
        QCOMPARE(hubBaseUrl(), std::string("http://mirror.example"));
        QCOMPARE(hubBaseUrlSource(), std::string("HEARSAY_HUB_URL"));
        QCOMPARE(hubBaseUrl("http://option.example"), std::string("http://option.example"));
        QCOMPARE(hubBaseUrlSource("http://option.example"), std::string("--hub-url"));
        qunsetenv("HEARSAY_HUB_URL");
        qunsetenv("HF_ENDPOINT");
        QCOMPARE(hubBaseUrl(), std::string("https://huggingface.co"));
        QCOMPARE(hubBaseUrlSource(), std::string("default"));
    }

    void tokenFromEnvironmentOrFile() {
        const fs::path home = root() / "hf-home";
        writeAll(home / "token", "hf_file_token\n");
        qunsetenv("HF_TOKEN");
        qputenv("HF_HOME", QByteArray::fromStdString(home.string()));
        QCOMPARE(huggingFaceToken(), std::string("hf_file_token"));
        qputenv("HF_TOKEN", "hf_env_token");
        QCOMPARE(huggingFaceToken(), std::string("hf_env_token"));
        qunsetenv("HF_TOKEN");
        QCOMPARE(huggingFaceCacheDirectory(), home / "hub");
        qunsetenv("HF_HOME");
    }

    // A fake hub cache: snapshots linking into blobs; a broken link, a partial blob and a
    // truncated ggml file are reported and skipped.
    void scanFindsHuggingFaceCache() {
        const fs::path cache = root() / "hf-cache";
        auto blobLink = [&](const std::string& repoDir, const std::string& file, const std::string& bytes) {
            const std::string sha = sha256Hex(bytes);
            writeAll(cache / repoDir / "blobs" / sha, bytes);
            fs::create_directories(cache / repoDir / "snapshots" / "abc123");
            fs::create_symlink(fs::path("../../blobs") / sha, cache / repoDir / "snapshots" / "abc123" / file);
        };
        // A Hugging Face checkpoint, file by file.
        makeSmallModel(ModelFormat::HuggingFace, root() / "hf-source");
        for (const auto& f : fs::directory_iterator(root() / "hf-source"))
            blobLink("models--openai--whisper-test", f.path().filename().string(), readAll(f.path()));
        // whisper.cpp's repository: one good file, one link to a missing blob, one truncated file.
        blobLink("models--ggerganov--whisper.cpp", "ggml-test.bin", m_ggml);
        fs::create_symlink("../../blobs/0000missing", cache / "models--ggerganov--whisper.cpp/snapshots/abc123/ggml-gone.bin");
        blobLink("models--ggerganov--whisper.cpp", "ggml-cut.bin", m_ggml.substr(0, m_ggml.size() / 3));
        writeAll(cache / "models--ggerganov--whisper.cpp/blobs/feedbeef.incomplete", m_ggml.substr(0, 1000));

        ScanLocations where;
        where.huggingFaceCaches = {cache};
        const ScanResult scan = scanForModels(where);
        QCOMPARE(scan.models.size(), size_t(2));
        bool hf = false, ggml = false;
        for (const auto& m : scan.models) {
            QCOMPARE(m.source, std::string("Hugging Face cache"));
            QCOMPARE(m.model.sizeName, std::string("64x2/2"));
            if (m.model.format == ModelFormat::HuggingFace) {
                hf = true;
                QCOMPARE(m.repo, std::string("openai/whisper-test"));
                QVERIFY(WhisperModel::load(m.model.path).ok());  // found in place, loadable
            }
            if (m.model.format == ModelFormat::Ggml) {
                ggml = true;
                QCOMPARE(m.model.path.filename().string(), std::string("ggml-test.bin"));
                QCOMPARE(m.model.bytes, uint64_t(m_ggml.size()));
            }
        }
        QVERIFY(hf && ggml);
        QCOMPARE(scan.problems.size(), size_t(3));
        std::string all;
        for (const auto& p : scan.problems) all += p.message + "\n";
        QVERIFY2(all.find("partial blob") != std::string::npos, all.c_str());
        QVERIFY2(all.find("ggml-gone.bin: broken symbolic link") != std::string::npos, all.c_str());
        QVERIFY2(all.find("ggml-cut.bin") != std::string::npos, all.c_str());
    }

    void scanSkipsPartialDownloads() {
        const fs::path dir = root() / "scan-partial";
        writeAll(dir / "ggml-half.bin.part", m_ggml.substr(0, 5000));
        writeAll(dir / ".tiny.en-ct2.partial" / "model.bin", "x");
        writeAll(dir / "ggml-whole.bin", m_ggml);
        ScanLocations where;
        where.modelsDirectory = dir;
        const ScanResult scan = scanForModels(where);
        QCOMPARE(scan.models.size(), size_t(1));
        QCOMPARE(scan.models[0].model.path.filename().string(), std::string("ggml-whole.bin"));
        QCOMPARE(scan.problems.size(), size_t(0));
    }

#ifdef HEARSAY_HAVE_CURL
    void downloadRandomGgmlModelAndLoad() {
        HubTestServer server;
        QVERIFY(server.ok());
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        server.add(e.repo, e.files[0].path, {m_ggml});
        const fs::path models = root() / "dl-ok";
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        uint64_t lastDone = 0;
        int calls = 0;
        o.progress = [&](const DownloadProgress& p) {
            QVERIFY(p.done >= lastDone);
            lastDone = p.done;
            ++calls;
        };
        auto path = downloadModel(e, models, o);
        QVERIFY2(path.ok(), path.ok() ? "" : path.message().c_str());
        QCOMPARE(path.value(), models / "ggml-test-small.bin");
        QCOMPARE(readAll(path.value()), m_ggml);
        QCOMPARE(lastDone, uint64_t(m_ggml.size()));
        QVERIFY(calls > 0);
        QVERIFY(!fs::exists(models / "ggml-test-small.bin.part"));
        auto model = WhisperModel::load(path.value());
        QVERIFY2(model.ok(), model.ok() ? "" : model.message().c_str());
        QCOMPARE(model.value()->config().nAudioState, 64);
        QCOMPARE(installedPath(e, models), path.value());
        const auto origin = readOrigin(e, models);  // X-Repo-Commit, recorded beside the model
        QVERIFY(origin.has_value());
        QCOMPARE(origin->commit, HubTestServer::commitOfName(e.repo, "main"));
        QCOMPARE(origin->hubUrl, server.baseUrl());
        // Installed: a second download asks nothing of the server.
        const size_t before = server.requests().size();
        QVERIFY(downloadModel(e, models, o).ok());
        QCOMPARE(server.requests().size(), before);
        auto removed = removeModel(e, models);
        QVERIFY(removed.ok() && removed.value());
        QVERIFY(installedPath(e, models).empty());
        QVERIFY(visible(models).empty());
        QVERIFY(!fs::exists(originPath(e, models)));
    }

    // The catalog's pins of tiny.en and base (CTranslate2), read from public records of the hub,
    // against the real files the PyPI packages carry: every file's size and SHA-256.
    void pinsMatchTheRealModelFiles() {
        for (const char* name : {"tiny.en", "base"}) {
            if (const QString why = real_models::missing(name); !why.isEmpty()) QFAIL(qPrintable(why));
            const CatalogEntry& e = *findCatalogEntry(name, ModelFormat::CTranslate2);
            QVERIFY(e.pinned() && e.hashesKnown());
            for (const auto& f : e.files) {
                const fs::path local = real_models::directory() / name / f.path;
                QVERIFY2(fs::exists(local), local.c_str());
                QCOMPARE(uint64_t(fs::file_size(local)), f.bytes);
                QCOMPARE(sha256OfFile(local).value(), f.sha256);
            }
        }
    }

    void downloadRealTinyEnFixtureAndLoad() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        const fs::path fixture = real_models::directory() / "tiny.en";
        const CatalogEntry& e = *findCatalogEntry("tiny.en", ModelFormat::CTranslate2);
        HubTestServer server;
        for (const auto& f : e.files) {
            if (!fs::exists(fixture / f.path)) continue;  // optional files the fixture lacks: 404
            HubTestServer::Route r{readAll(fixture / f.path)};
            r.linkedHeaders = f.path == "model.bin";  // LFS on the hub; the small files are plain git
            server.add(e.repo, f.path, r, e.revision);
        }
        const fs::path models = root() / "dl-real";
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto path = downloadModel(e, models, o);
        QVERIFY2(path.ok(), path.ok() ? "" : path.message().c_str());
        QCOMPARE(path.value(), models / "tiny.en-ct2");
        QCOMPARE(visible(models), std::vector<std::string>{"tiny.en-ct2"});
        QCOMPARE(sha256OfFile(path.value() / "model.bin").value(), sha256OfFile(fixture / "model.bin").value());
        auto model = WhisperModel::load(path.value());
        QVERIFY2(model.ok(), model.ok() ? "" : model.message().c_str());
        QCOMPARE(model.value()->format(), ModelFormat::CTranslate2);
        QVERIFY(!model.value()->config().isMultilingual());
        // The requests followed the hub's URL scheme: every file at the catalog's pinned commit
        // (the one the hub names), recorded beside the model. The fixture's files passed the pins'
        // sizes and hashes: the pins are those of the real files.
        const auto origin = readOrigin(e, models);
        QVERIFY(origin.has_value());
        QVERIFY(e.pinned());
        QCOMPARE(origin->commit, e.revision);
        QCOMPARE(origin->repo, e.repo);
        QCOMPARE(origin->revision, e.revision);
        const auto seen = server.requests();
        QCOMPARE(seen[0].path, "/Systran/faster-whisper-tiny.en/resolve/" + e.revision + "/config.json");
        bool sawModel = false;
        for (const auto& r : seen)
            sawModel |= r.path == "/Systran/faster-whisper-tiny.en/resolve/" + origin->commit + "/model.bin";
        QVERIFY(sawModel);
    }

    // The CLI against the loopback hub: the progress line, the installed path, path and remove,
    // and a failure's message and exit status.
    void cliDownloadPathRemove() {
        HubTestServer server;
        server.add("ggerganov/whisper.cpp", "ggml-base.en-q5_1.bin", {"not the model", 404},
                   findCatalogEntry("base.en-q5_1")->revision);
        const QString models = QString::fromStdString((root() / "cli-models").string());
        QProcess cli;
        cli.start(HEARSAY_CLI_PATH, {"models", "download", "base.en-q5_1", "--hub-url",
                                     QString::fromStdString(server.baseUrl()), "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        const QString error = QString::fromUtf8(cli.readAllStandardError());
        qInfo("user sees: %s", qPrintable(error.trimmed()));
        QVERIFY2(error.contains("hearsay-cli models download: ggml-base.en-q5_1.bin: not found on the hub (HTTP 404)"),
                 qPrintable(error));

        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        const fs::path fixture = real_models::directory() / "tiny.en";
        for (const char* f : {"config.json", "model.bin", "tokenizer.json", "vocabulary.txt"}) {
            HubTestServer::Route r{readAll(fixture / f)};
            // Every transfer of the first run is cut after 5 MB (three attempts): run it twice.
            r.cutAfter = std::string(f) == "model.bin" ? 5000000 : 0;
            r.cuts = 3;
            server.add("Systran/faster-whisper-tiny.en", f, r,
                       findCatalogEntry("tiny.en", ModelFormat::CTranslate2)->revision);
        }
        const QStringList download = {"models", "download", "tiny.en", "--hub-url",
                                      QString::fromStdString(server.baseUrl()), "--models-dir", models};
        cli.start(HEARSAY_CLI_PATH, download);
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        const QString cut = QString::fromUtf8(cli.readAllStandardError());
        qInfo("user sees: %s", qPrintable(cut.trimmed()));
        QVERIFY2(cut.contains("gave up on model.bin after 3 attempts") && cut.contains("was cut after 15.0 MB"),
                 qPrintable(cut));
        cli.start(HEARSAY_CLI_PATH, download);
        QVERIFY(cli.waitForFinished(60000));
        const QString progress = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(cli.exitCode() == 0, qPrintable(progress));
        QVERIFY2(progress.contains("tiny.en-ct2: model.bin (2/4)") && progress.contains("100%"), qPrintable(progress));
        const QString installed = models + "/tiny.en-ct2";
        QCOMPARE(QString::fromUtf8(cli.readAllStandardOutput()).trimmed(), installed);

        cli.start(HEARSAY_CLI_PATH, {"models", "path", "tiny.en", "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(QString::fromUtf8(cli.readAllStandardOutput()).trimmed(), installed);
        cli.start(HEARSAY_CLI_PATH, {"models", "list", "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        const QString list = QString::fromUtf8(cli.readAllStandardOutput());
        QVERIFY2(list.contains(QRegularExpression("tiny.en +ct2 .* installed")), qPrintable(list));
        cli.start(HEARSAY_CLI_PATH, {"models", "remove", "tiny.en", "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY(!fs::exists(installed.toStdString()));
    }

    // HF_ENDPOINT (huggingface_hub's variable for a mirror) is honoured when neither --hub-url nor
    // HEARSAY_HUB_URL is given, and shown by `models list`. The loopback hub serves another file
    // than the catalog pins for tiny.en, so the download ends with that message: it came from here.
    void cliHonoursHfEndpoint() {
        HubTestServer server;
        const CatalogEntry& e = *findCatalogEntry("tiny.en", ModelFormat::Ggml);
        server.add(e.repo, e.files[0].path, {m_ggml}, e.revision);
        const QString models = QString::fromStdString((root() / "cli-endpoint").string());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("HEARSAY_HUB_URL");
        env.insert("HF_ENDPOINT", QString::fromStdString(server.baseUrl()));
        QProcess cli;
        cli.setProcessEnvironment(env);
        cli.start(HEARSAY_CLI_PATH, {"models", "download", "tiny.en", "--format", "ggml", "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        const QString error = QString::fromUtf8(cli.readAllStandardError());
        qInfo("user sees: %s", qPrintable(error.trimmed()));
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY2(error.contains("the hub now serves a different file than this version of Hearsay knows"), qPrintable(error));
        const auto seen = server.requests();
        QCOMPARE(seen.size(), size_t(1));
        QCOMPARE(seen[0].path, "/" + e.repo + "/resolve/" + e.revision + "/ggml-tiny.en.bin");

        cli.start(HEARSAY_CLI_PATH, {"models", "list", "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        const QString list = QString::fromUtf8(cli.readAllStandardOutput());
        QVERIFY2(list.startsWith(QString::fromStdString("hub: " + server.baseUrl() + " (HF_ENDPOINT)\n")), qPrintable(list));
        env.insert("HEARSAY_HUB_URL", "http://mirror.example");
        cli.setProcessEnvironment(env);
        cli.start(HEARSAY_CLI_PATH, {"models", "list", "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY(QString::fromUtf8(cli.readAllStandardOutput()).startsWith("hub: http://mirror.example (HEARSAY_HUB_URL)\n"));
    }

    // The catalog's pinned commit is the default; `--revision main` is the user's explicit choice,
    // where the pinned size and hash do not hold: the file is checked against the hub's headers.
    void cliRevisionMainIsExplicit() {
        HubTestServer server;
        const CatalogEntry& e = *findCatalogEntry("base.en-q5_1");
        QVERIFY(e.revision != "main");
        server.add(e.repo, e.files[0].path, {m_ggml}, "main");
        const QString models = QString::fromStdString((root() / "cli-main").string());
        QProcess cli;
        const QStringList download = {"models", "download", "base.en-q5_1", "--hub-url",
                                      QString::fromStdString(server.baseUrl()), "--models-dir", models};
        cli.start(HEARSAY_CLI_PATH, download);
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);  // the pinned commit is not on this hub
        QVERIFY2(QString::fromUtf8(cli.readAllStandardError()).contains("does not exist on the hub"), "");
        cli.start(HEARSAY_CLI_PATH, download + QStringList{"--revision", "main"});
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, qPrintable(QString::fromUtf8(cli.readAllStandardError())));
        QCOMPARE(readAll(models.toStdString() + "/ggml-base.en-q5_1.bin"), m_ggml);
        const auto origin = readOrigin(e, models.toStdString());
        QVERIFY(origin.has_value());
        QCOMPARE(origin->revision, std::string("main"));
        QCOMPARE(origin->commit, HubTestServer::commitOfName(e.repo, "main"));
        QCOMPARE(server.requests().back().path, "/" + e.repo + "/resolve/main/ggml-base.en-q5_1.bin");
    }

    // libcurl is loaded when the first download starts. Where it cannot be (here: files of its two
    // names that are not libraries, first in LD_LIBRARY_PATH) or is not libcurl (a library of those
    // names without its entry points, tests/core/not_libcurl.cpp), the user is told which and how to
    // mend it; nothing is asked of the hub and nothing is written.
    void cliWithoutLibcurl_data() {
        QTest::addColumn<QString>("libraryDir");
        QTest::addColumn<QString>("expected");
        const QString empty = QString::fromStdString((root() / "empty-libcurl").string());
        QTest::newRow("cannot be loaded")
            << empty << "model downloads need libcurl (Debian: libcurl4), which cannot be loaded: " + empty +
                            "/libcurl.so.4: file too short";
        QTest::newRow("not libcurl") << QString(NOT_LIBCURL_DIR)
                                     << QString(NOT_LIBCURL_DIR) + "/libcurl.so.4 is not a libcurl the downloader can "
                                                                   "use (it lacks curl_global_init); model downloads "
                                                                   "need libcurl (Debian: libcurl4)";
    }
    void cliWithoutLibcurl() {
        QFETCH(QString, libraryDir);
        QFETCH(QString, expected);
        for (const char* name : {"libcurl.so.4", "libcurl.so"}) writeAll(root() / "empty-libcurl" / name, "");
        HubTestServer server;
        const CatalogEntry& e = *findCatalogEntry("tiny.en", ModelFormat::Ggml);
        server.add(e.repo, e.files[0].path, {m_ggml}, e.revision);
        const QString models = QString::fromStdString((root() / "cli-without-libcurl").string());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("LD_LIBRARY_PATH", libraryDir);
        QProcess cli;
        cli.setProcessEnvironment(env);
        cli.start(HEARSAY_CLI_PATH, {"models", "download", "tiny.en", "--format", "ggml", "--hub-url",
                                     QString::fromStdString(server.baseUrl()), "--models-dir", models});
        QVERIFY(cli.waitForFinished(60000));
        const QString error = QString::fromUtf8(cli.readAllStandardError());
        qInfo("user sees: %s", qPrintable(error.trimmed()));
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY(server.requests().empty());
        std::error_code ec;  // no folder made, or an empty one: not even a partial file
        QVERIFY(!fs::exists(models.toStdString(), ec) || fs::is_empty(models.toStdString(), ec));
    }

    void offlineConnectionRefused() {
        int port = 0;
        {
            HubTestServer closed;  // a port that was just free, closed again
            port = std::stoi(closed.baseUrl().substr(closed.baseUrl().rfind(':') + 1));
        }
        DownloadOptions o;
        o.hubUrl = "http://127.0.0.1:" + std::to_string(port);
        const fs::path models = root() / "dl-offline";
        auto r = downloadModel(ggmlTestEntry(m_ggml), models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("cannot connect to 127.0.0.1 (offline, or the server is down)") != std::string::npos,
                 r.message().c_str());
        QVERIFY(visible(models).empty());
    }

    void dnsFailure() {
        DownloadOptions o;
        o.hubUrl = "http://hearsay-no-such-host.invalid";
        o.connectTimeoutSeconds = 10;
        auto r = downloadModel(ggmlTestEntry(m_ggml), root() / "dl-dns", o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("cannot resolve the host name 'hearsay-no-such-host.invalid'") != std::string::npos,
                 r.message().c_str());
    }

    void httpErrors_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("expected");
        QTest::newRow("404") << 404 << "not found on the hub (HTTP 404)";
        QTest::newRow("401") << 401 << "access denied (HTTP 401)";
        QTest::newRow("403") << 403 << "access denied (HTTP 403)";
        QTest::newRow("500") << 500 << "the hub failed (HTTP 500)";
    }
    void httpErrors() {
        QFETCH(int, status);
        QFETCH(QString, expected);
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        HubTestServer::Route route{m_ggml};
        route.status = status;
        server.add(e.repo, e.files[0].path, route);
        const fs::path models = root() / ("dl-http-" + std::to_string(status));
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(e, models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find(expected.toStdString()) != std::string::npos, r.message().c_str());
        QVERIFY2(r.message().find(server.baseUrl() + "/hearsay-test/ggml/resolve/main/ggml-test-small.bin") !=
                     std::string::npos, r.message().c_str());
        if (status == 401 || status == 403) QVERIFY(r.message().find("HF_TOKEN") != std::string::npos);
        QVERIFY(visible(models).empty());
        QVERIFY(!fs::exists(models / "ggml-test-small.bin.part"));
    }

    void gatedRepositoryWithToken() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        HubTestServer::Route route{m_ggml};
        route.token = "hf_secret";
        server.add(e.repo, e.files[0].path, route);
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto denied = downloadModel(e, root() / "dl-gated", o);
        QVERIFY(!denied.ok());
        qInfo("user sees: %s", denied.message().c_str());
        QVERIFY(denied.message().find("HTTP 401") != std::string::npos);
        o.token = "hf_secret";
        auto ok = downloadModel(e, root() / "dl-gated", o);
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.message().c_str());
        QCOMPARE(server.requests().back().authorization, std::string("Bearer hf_secret"));
    }

    void cutMidFileThenResumed() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        HubTestServer::Route route{m_ggml};
        route.cutAfter = m_ggml.size() / 3;
        route.cuts = 1;
        server.add(e.repo, e.files[0].path, route);
        const fs::path models = root() / "dl-cut";
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        o.maxAttempts = 1;  // the resume happens in the next run
        auto first = downloadModel(e, models, o);
        QVERIFY(!first.ok());
        qInfo("user sees: %s", first.message().c_str());
        QVERIFY2(first.message().find("was cut after") != std::string::npos, first.message().c_str());
        QVERIFY2(first.message().find("the next download resumes from there") != std::string::npos, first.message().c_str());
        const fs::path part = models / "ggml-test-small.bin.part";
        QCOMPARE(fs::file_size(part), uint64_t(route.cutAfter));
        QVERIFY(visible(models).empty());  // not offered as a model
        ScanLocations where;
        where.modelsDirectory = models;
        QVERIFY(scanForModels(where).models.empty());

        auto second = downloadModel(e, models, o);
        QVERIFY2(second.ok(), second.ok() ? "" : second.message().c_str());
        QCOMPARE(server.requests().back().rangeStart, int64_t(route.cutAfter));  // resumed, not restarted
        QCOMPARE(readAll(second.value()), m_ggml);
        QVERIFY(!fs::exists(part));
    }

    void wrongHashRemoved() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        HubTestServer::Route route{m_ggml};
        route.wrongBytes = true;
        server.add(e.repo, e.files[0].path, route);
        const fs::path models = root() / "dl-hash";
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(e, models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("SHA-256 mismatch for ggml-test-small.bin.part") != std::string::npos ||
                     r.message().find("SHA-256 mismatch for ggml-test-small.bin") != std::string::npos,
                 r.message().c_str());
        QVERIFY(r.message().find("the download was removed") != std::string::npos);
        QVERIFY(!fs::exists(models / "ggml-test-small.bin.part"));
        QVERIFY(visible(models).empty());
    }

    // No hash in the catalog: the hub's X-Linked-Etag is the reference.
    void wrongHashAgainstLinkedEtag() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml, false);
        HubTestServer::Route route{m_ggml};
        route.wrongBytes = true;
        server.add(e.repo, e.files[0].path, route);
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(e, root() / "dl-etag", o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("SHA-256 mismatch") != std::string::npos, r.message().c_str());
        QVERIFY2(r.message().find(sha256Hex(m_ggml)) != std::string::npos, r.message().c_str());
    }

    // A resume whose range starts at or past the end gets 416: the part is compared with the file
    // the server holds and either completes or starts over from zero, never asked for again.
    void resumePastTheEnd_data() {
        QTest::addColumn<QString>("part");     // what an earlier run left
        QTest::addColumn<bool>("pinned");      // the catalog knows size and hash
        QTest::addColumn<int>("requests");
        QTest::addColumn<bool>("startedOver");
        QTest::newRow("part is the whole file: completes") << "whole" << true << 1 << false;
        QTest::newRow("part is the whole file, unpinned: completes") << "whole" << false << 1 << false;
        QTest::newRow("same size, other bytes: starts over") << "other" << true << 2 << true;
        QTest::newRow("longer than the file, unpinned: starts over") << "longer" << false << 2 << true;
    }
    void resumePastTheEnd() {
        QFETCH(QString, part);
        QFETCH(bool, pinned);
        QFETCH(int, requests);
        QFETCH(bool, startedOver);
        HubTestServer server;
        const CatalogEntry e = pinned ? ggmlTestEntry(m_ggml) : ggmlTestEntry(m_ggml, false);
        CatalogEntry entry = e;
        if (!pinned) entry.files[0].bytes = 0;
        server.add(e.repo, e.files[0].path, {m_ggml});
        const fs::path models = root() / ("dl-416-" + part.toStdString() + (pinned ? "-pinned" : ""));
        std::string kept = m_ggml;
        if (part == "other") kept[kept.size() / 2] = char(kept[kept.size() / 2] ^ 0x5a);
        if (part == "longer") kept += "trailing bytes of another file";
        writeAll(models / "ggml-test-small.bin.part", kept);
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(entry, models, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(readAll(r.value()), m_ggml);
        const auto seen = server.requests();
        QCOMPARE(int(seen.size()), requests);
        QCOMPARE(seen[0].rangeStart, int64_t(kept.size()));
        if (startedOver) QCOMPARE(seen[1].rangeStart, int64_t(-1));  // from zero
        QVERIFY(!fs::exists(models / "ggml-test-small.bin.part"));
    }

    // A server that ignores Range answers a resume with 200 and the whole file (libcurl stops with
    // CURLE_RANGE_ERROR): the part is dropped and the file fetched from zero.
    void resumeIgnoredStartsOver() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        HubTestServer::Route route{m_ggml};
        route.ignoreRange = true;
        server.add(e.repo, e.files[0].path, route);
        const fs::path models = root() / "dl-no-range";
        writeAll(models / "ggml-test-small.bin.part", m_ggml.substr(0, m_ggml.size() / 3));
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(e, models, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(readAll(r.value()), m_ggml);
        const auto seen = server.requests();
        QCOMPARE(seen.size(), size_t(2));
        QCOMPARE(seen[0].rangeStart, int64_t(m_ggml.size() / 3));
        QCOMPARE(seen[1].rangeStart, int64_t(-1));
    }

    // The transfers of one file are counted: a connection cut every time gives up after
    // maxAttempts with the last cause, keeping what arrived for the next run.
    void attemptsAreCapped() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        HubTestServer::Route route{m_ggml};
        route.cutAfter = m_ggml.size() / 10;
        route.cuts = 1000;
        server.add(e.repo, e.files[0].path, route);
        const fs::path models = root() / "dl-capped";
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        o.maxAttempts = 3;
        auto r = downloadModel(e, models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("gave up on ggml-test-small.bin after 3 attempts") != std::string::npos,
                 r.message().c_str());
        QVERIFY2(r.message().find("was cut after") != std::string::npos, r.message().c_str());
        const auto seen = server.requests();
        QCOMPARE(seen.size(), size_t(3));
        for (size_t i = 0; i < seen.size(); ++i)  // each attempt resumed where the last one was cut
            QCOMPARE(seen[i].rangeStart, i == 0 ? int64_t(-1) : int64_t(i * route.cutAfter));
        QCOMPARE(fs::file_size(models / "ggml-test-small.bin.part"), uint64_t(3 * route.cutAfter));
    }

    // The catalog pins a file's size and SHA-256; a hub that now serves another file under that
    // name is reported as such at once (no download of it, no retry).
    void pinnedFileChanged_data() {
        QTest::addColumn<QString>("change");
        QTest::addColumn<bool>("resume");
        QTest::newRow("other size") << "size" << false;
        QTest::newRow("same size, other hash") << "hash" << false;
        QTest::newRow("other size, on a resume past the end (416)") << "size" << true;
        QTest::newRow("same size, other hash, on a resume (206)") << "hash" << true;
    }
    void pinnedFileChanged() {
        QFETCH(QString, change);
        QFETCH(bool, resume);
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);  // pins m_ggml
        std::string now = m_ggml;
        if (change == "size") now.resize(m_ggml.size() / 2);
        else now[100] = char(now[100] ^ 0x5a);
        server.add(e.repo, e.files[0].path, {now});
        const fs::path models = root() / ("dl-changed-" + change.toStdString() + (resume ? "-resume" : ""));
        if (resume) writeAll(models / "ggml-test-small.bin.part", m_ggml.substr(0, change == "size" ? m_ggml.size() * 3 / 4 : 1000));
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(e, models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("the hub now serves a different file than this version of Hearsay knows: ") !=
                     std::string::npos, r.message().c_str());
        QVERIFY2(r.message().find(change == "size" ? std::to_string(now.size()) + " bytes" : sha256Hex(now)) !=
                     std::string::npos, r.message().c_str());
        QCOMPARE(server.requests().size(), size_t(1));
        QVERIFY(!fs::exists(models / "ggml-test-small.bin.part"));
        QVERIFY(visible(models).empty());
    }

    // An expired token is refused by the hub even for a public repository: the file comes without
    // it, once, and the user is told.
    void expiredTokenOnPublicRepository() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        server.add(e.repo, e.files[0].path, {m_ggml});
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        o.token = "hf_expired";
        std::vector<std::string> warnings;
        o.warning = [&](const std::string& w) { warnings.push_back(w); };
        auto r = downloadModel(e, root() / "dl-expired", o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(readAll(r.value()), m_ggml);
        QCOMPARE(warnings.size(), size_t(1));
        qInfo("user sees: %s", warnings[0].c_str());
        QVERIFY2(warnings[0].find("your saved hub token was refused (expired?)") != std::string::npos, warnings[0].c_str());
        const auto seen = server.requests();
        QCOMPARE(seen.size(), size_t(2));
        QCOMPARE(seen[0].authorization, std::string("Bearer hf_expired"));
        QCOMPARE(seen[1].authorization, std::string());
    }

    // The hub answers 401 for a repository that does not exist (as for a private one) with
    // X-Error-Code RepoNotFound, and 404 RevisionNotFound for a revision it lacks.
    void missingRepositoryOrRevision_data() {
        QTest::addColumn<QString>("repo");
        QTest::addColumn<QString>("revision");
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing repository") << "hearsay-test/nowhere" << "main" << ""
                                            << "the repository hearsay-test/nowhere does not exist on the hub (HTTP 401)";
        QTest::newRow("missing repository, expired token")
            << "hearsay-test/nowhere" << "main" << "hf_expired"
            << "the repository hearsay-test/nowhere does not exist on the hub (HTTP 401)";
        QTest::newRow("missing revision") << "hearsay-test/ggml" << "v9" << ""
                                          << "the revision v9 of hearsay-test/ggml does not exist on the hub (HTTP 404)";
    }
    void missingRepositoryOrRevision() {
        QFETCH(QString, repo);
        QFETCH(QString, revision);
        QFETCH(QString, token);
        QFETCH(QString, expected);
        HubTestServer server;
        const CatalogEntry served = ggmlTestEntry(m_ggml);
        server.add(served.repo, served.files[0].path, {m_ggml});
        CatalogEntry e = served;
        e.repo = repo.toStdString();
        e.revision = revision.toStdString();
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        o.token = token.toStdString();
        auto r = downloadModel(e, root() / "dl-missing", o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find(expected.toStdString()) != std::string::npos, r.message().c_str());
        QVERIFY(r.message().find("access denied") == std::string::npos);
        if (!token.isEmpty()) {
            QVERIFY2(r.message().find("your saved hub token was refused too") != std::string::npos, r.message().c_str());
            QCOMPARE(server.requests().size(), size_t(2));  // once with the token, once without
        } else {
            QCOMPARE(server.requests().size(), size_t(1));
        }
    }

    // The hub answers a file of an LFS repository with 302 to its CDN on another host, sending
    // X-Linked-Size and X-Linked-Etag on that first response only; a renamed repository answers
    // 307 to its new name first. The downloader follows both, checks the file against the first
    // response's linked size and hash, and sends the token to the hub only.
    void redirectsAsTheHub_data() {
        QTest::addColumn<bool>("renamed");
        QTest::addColumn<bool>("cdnLies");    // the CDN sends other bytes (same length)
        QTest::addColumn<bool>("resume");
        QTest::newRow("302 to the CDN") << false << false << false;
        QTest::newRow("302 to the CDN, resumed there") << false << false << true;
        QTest::newRow("307 renamed repository, then 302 to the CDN") << true << false << false;
        QTest::newRow("302 to a CDN sending other bytes") << false << true << false;
    }
    void redirectsAsTheHub() {
        QFETCH(bool, renamed);
        QFETCH(bool, cdnLies);
        QFETCH(bool, resume);
        HubTestServer hub, cdn;
        CatalogEntry e = ggmlTestEntry(m_ggml, false);
        e.files[0].bytes = 0;  // unpinned: the first response's X-Linked-* are the reference
        const std::string file = e.files[0].path;
        HubTestServer::Route blob{m_ggml};
        blob.linkedHeaders = false;  // the CDN sends Content-Length and its own ETag only
        blob.wrongBytes = cdnLies;
        cdn.addPath("/repos/ab/cd/blob-0001", blob);
        HubTestServer::Route toCdn{m_ggml};
        toCdn.redirect = cdn.baseUrl() + "/repos/ab/cd/blob-0001";
        toCdn.redirectStatus = 302;
        hub.add(e.repo, file, toCdn);
        hub.addValidToken("hf_valid");
        if (renamed) {
            HubTestServer::Route moved;
            moved.redirect = "/" + e.repo + "/resolve/main/" + file;
            moved.redirectStatus = 307;
            hub.add("hearsay-test/old-name", file, moved);
            e.repo = "hearsay-test/old-name";
        }
        const fs::path models = root() / ("dl-redirect-" + std::to_string(int(renamed)) + std::to_string(int(cdnLies)) +
                                          std::to_string(int(resume)));
        if (resume) writeAll(models / (file + ".part"), m_ggml.substr(0, m_ggml.size() / 2));
        DownloadOptions o;
        o.hubUrl = hub.baseUrl();
        o.token = "hf_valid";
        auto r = downloadModel(e, models, o);
        if (cdnLies) {
            QVERIFY(!r.ok());
            qInfo("user sees: %s", r.message().c_str());
            QVERIFY2(r.message().find("SHA-256 mismatch") != std::string::npos, r.message().c_str());
            QVERIFY2(r.message().find("expected " + sha256Hex(m_ggml)) != std::string::npos, r.message().c_str());
            return;
        }
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(readAll(r.value()), m_ggml);
        const auto atHub = hub.requests();
        QCOMPARE(atHub.size(), size_t(renamed ? 2 : 1));
        for (const auto& q : atHub) QCOMPARE(q.authorization, std::string("Bearer hf_valid"));
        const auto atCdn = cdn.requests();
        QCOMPARE(atCdn.size(), size_t(1));
        QCOMPARE(atCdn[0].path, std::string("/repos/ab/cd/blob-0001"));
        QCOMPARE(atCdn[0].authorization, std::string());  // another host: no token
        QCOMPARE(atCdn[0].rangeStart, resume ? int64_t(m_ggml.size() / 2) : int64_t(-1));
    }

    // The commit is recorded as soon as the hub names it, so a download cut in its first file
    // resumes from that commit even after the branch moved on.
    void resumedDownloadKeepsItsCommit() {
        HubTestServer server;
        CatalogEntry e = ggmlTestEntry(m_ggml);
        HubTestServer::Route route{m_ggml};
        route.cutAfter = m_ggml.size() / 3;
        route.cuts = 1;
        server.add(e.repo, e.files[0].path, route);
        const std::string firstCommit(40, 'c'), movedCommit(40, 'd');
        server.setCommit(e.repo, "main", firstCommit);
        const fs::path models = root() / "dl-keeps-commit";
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        o.maxAttempts = 1;
        QVERIFY(!downloadModel(e, models, o).ok());
        QVERIFY(readOrigin(e, models).has_value());  // before the file is complete
        QCOMPARE(readOrigin(e, models)->commit, firstCommit);
        server.setCommit(e.repo, "main", movedCommit);
        auto r = downloadModel(e, models, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(readAll(r.value()), m_ggml);
        const auto seen = server.requests();
        QCOMPARE(seen.size(), size_t(2));
        QCOMPARE(seen[1].path, "/" + e.repo + "/resolve/" + firstCommit + "/" + e.files[0].path);
        QCOMPARE(seen[1].rangeStart, int64_t(route.cutAfter));
        QCOMPARE(readOrigin(e, models)->commit, firstCommit);
    }

    // A write-failing file: the partial file is /dev/full (ENOSPC on every write).
    void diskFull() {
        if (!fs::exists("/dev/full")) QSKIP("no /dev/full");
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        server.add(e.repo, e.files[0].path, {m_ggml});
        const fs::path models = root() / "dl-full";
        fs::create_directories(models);
        fs::create_symlink("/dev/full", models / "ggml-test-small.bin.part");
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(e, models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("No space left on device") != std::string::npos, r.message().c_str());
        QVERIFY(r.message().find("free some space") != std::string::npos);
        QVERIFY(!fs::exists(models / "ggml-test-small.bin"));
    }

    void permissionDenied() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        server.add(e.repo, e.files[0].path, {m_ggml});
        fs::path models;
        std::string expected;
        if (::geteuid() == 0) {
            // root passes permission bits; sysfs refuses new directories even to root.
            models = "/sys/hearsay-test-models";
            expected = "Operation not permitted";
        } else {
            const fs::path locked = root() / "locked";
            fs::create_directories(locked);
            ::chmod(locked.c_str(), 0500);
            models = locked / "models";
            expected = "Permission denied";
        }
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        auto r = downloadModel(e, models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(r.message().find("cannot create the models directory " + models.string()) != std::string::npos,
                 r.message().c_str());
        QVERIFY2(r.message().find(expected) != std::string::npos, r.message().c_str());
        QVERIFY(server.requests().empty());
    }

    void cancelKeepsPartial() {
        HubTestServer server;
        const CatalogEntry e = ggmlTestEntry(m_ggml);
        server.add(e.repo, e.files[0].path, {m_ggml});
        const fs::path models = root() / "dl-cancel";
        std::atomic<bool> cancel{false};
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        o.cancel = &cancel;
        o.progress = [&](const DownloadProgress& p) {
            if (p.fileDone > 0) cancel.store(true);
        };
        auto r = downloadModel(e, models, o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QCOMPARE(r.kind(), ErrorKind::Cancelled);
        QVERIFY2(r.message().find("cancelled") != std::string::npos, r.message().c_str());
        QVERIFY(visible(models).empty());
        cancel.store(false);
        o.progress = {};
        auto again = downloadModel(e, models, o);
        QVERIFY2(again.ok(), again.ok() ? "" : again.message().c_str());
        QCOMPARE(readAll(again.value()), m_ggml);
    }

    // A directory model: an optional file the repository lacks is skipped; the directory appears
    // only once complete.
    void directoryModelAssembledAtomically() {
        makeSmallModel(ModelFormat::HuggingFace, root() / "hf-dl-source");
        CatalogEntry e;
        e.name = "test-hf";
        e.format = ModelFormat::HuggingFace;
        e.repo = "hearsay-test/hf";
        HubTestServer server;
        std::vector<fs::path> sources;  // in name order, the weights (cut in the first run) last
        for (const auto& f : fs::directory_iterator(root() / "hf-dl-source")) sources.push_back(f.path());
        std::sort(sources.begin(), sources.end());
        std::stable_partition(sources.begin(), sources.end(),
                              [](const fs::path& p) { return p.filename() != "model.safetensors"; });
        QVERIFY(sources.size() > 1 && sources.back().filename() == "model.safetensors");
        for (const auto& f : sources) {
            const std::string name = f.filename().string();
            e.files.push_back({name, 0, "", false});
            HubTestServer::Route r{readAll(f)};
            if (name == "model.safetensors") {
                r.cutAfter = 100000;
                r.cuts = 1;
            }
            server.add(e.repo, name, r);
        }
        e.files.push_back({"absent_optional.json", 0, "", true});
        const std::string firstCommit(40, 'a'), movedCommit(40, 'b');
        server.setCommit(e.repo, "main", firstCommit);
        const fs::path models = root() / "dl-dir";
        DownloadOptions o;
        o.hubUrl = server.baseUrl();
        o.maxAttempts = 1;  // the resume happens in the next run
        auto first = downloadModel(e, models, o);
        QVERIFY(!first.ok());
        qInfo("user sees: %s", first.message().c_str());
        QVERIFY(visible(models).empty());
        QVERIFY(fs::exists(models / ".test-hf-hf.partial"));
        server.setCommit(e.repo, "main", movedCommit);  // main moves on between the two runs
        auto second = downloadModel(e, models, o);
        QVERIFY2(second.ok(), second.ok() ? "" : second.message().c_str());
        QCOMPARE(visible(models), std::vector<std::string>{"test-hf-hf"});
        QVERIFY(!fs::exists(models / ".test-hf-hf.partial"));
        QVERIFY(WhisperModel::load(second.value()).ok());
        // Every file came from the commit the first one was at, though main moved.
        const auto seen = server.requests();
        QCOMPARE(seen[0].path, "/" + e.repo + "/resolve/main/" + e.files[0].path);
        for (size_t i = 1; i < seen.size(); ++i)
            QVERIFY2(seen[i].path.starts_with("/" + e.repo + "/resolve/" + firstCommit + "/"), seen[i].path.c_str());
        QCOMPARE(readOrigin(e, models)->commit, firstCommit);
    }
#endif
};

QTEST_GUILESS_MAIN(TestModelHub)
#include "tst_model_hub.moc"
