// The catalog's table. Sources:
// - ggml files (ggerganov/whisper.cpp): sizes and SHA-256 are the LFS object ids Hugging Face
//   publishes for these files at the commit kRevisions names, the revision they are fetched from.
// - distil-whisper/distil-large-v3-ggml: the file's size at commit 0d78dd96 (a prefix the hub
//   resolves); its SHA-256 is not recorded (the hub's X-Linked-Etag checks it).
//   distil-whisper/distil-large-v3.5-ggml: neither size nor hash known; unpinned ("main").
// - Hugging Face (openai/*, distil-whisper/*) and CTranslate2 (Systran/*, dropbox-dash/*,
//   distil-whisper/*-ct2) repositories: file lists only, at "main": their commits, sizes and
//   hashes are not known here. scripts/update_catalog.py reads them from the hub's API; until
//   then the downloader takes every file of one download from the commit the hub names for the
//   first (X-Repo-Commit), verifies them against X-Linked-Size / X-Linked-Etag, and diskBytes
//   is an estimate from the parameter count.
// - Parameters: OpenAI's model card and distil-whisper's. Speed: OpenAI's relative speeds
//   (large = 1x) and distil-whisper's published factor against large-v3.
#include "core/hub/model_catalog.h"

namespace hearsay::hub {
namespace {

struct Size {
    const char* name;
    int parametersMillions;
    const char* speed;
    bool englishOnly;
};

constexpr uint64_t kMB = 1000 * 1000;

// The revision each repository is fetched at (scripts/update_catalog.py rewrites these lines).
// ggerganov/whisper.cpp: the commit whose LFS objects the ggml sizes and hashes below are.
// distil-large-v3-ggml: the commit its file size was read at. The others are "main" until their
// commits are read from the hub (not known offline); a download then takes all the files of one
// model from the commit the hub names for the first.
struct Pin {
    const char* repo;
    const char* revision;
};
constexpr Pin kRevisions[] = {
    // BEGIN REVISIONS
    {"ggerganov/whisper.cpp", "5359861c739e955e79d9a303bcbc70fb988958b1"},
    {"distil-whisper/distil-large-v3-ggml", "0d78dd96"},
    {"distil-whisper/distil-large-v3.5-ggml", "main"},
    {"Systran/faster-whisper-tiny", "main"},
    {"Systran/faster-whisper-tiny.en", "main"},
    {"Systran/faster-whisper-base", "main"},
    {"Systran/faster-whisper-base.en", "main"},
    {"Systran/faster-whisper-small", "main"},
    {"Systran/faster-whisper-small.en", "main"},
    {"Systran/faster-whisper-medium", "main"},
    {"Systran/faster-whisper-medium.en", "main"},
    {"Systran/faster-whisper-large-v3", "main"},
    {"dropbox-dash/faster-whisper-large-v3-turbo", "main"},
    {"Systran/faster-distil-whisper-large-v3", "main"},
    {"distil-whisper/distil-large-v3.5-ct2", "main"},
    {"openai/whisper-tiny", "main"},
    {"openai/whisper-tiny.en", "main"},
    {"openai/whisper-base", "main"},
    {"openai/whisper-base.en", "main"},
    {"openai/whisper-small", "main"},
    {"openai/whisper-small.en", "main"},
    {"openai/whisper-medium", "main"},
    {"openai/whisper-medium.en", "main"},
    {"openai/whisper-large-v3", "main"},
    {"openai/whisper-large-v3-turbo", "main"},
    {"distil-whisper/distil-large-v3", "main"},
    {"distil-whisper/distil-large-v3.5", "main"},
    // END REVISIONS
};

std::string revisionOf(std::string_view repo) {
    for (const Pin& p : kRevisions)
        if (repo == p.repo) return p.revision;
    return {};  // a repository missing above: the catalog test fails on the empty revision
}

// Resident memory while transcribing on the CPU backend: the weights as the engine holds them
// (float32 for f16/f32 files, quantised blocks kept as stored) plus caches and work buffers.
uint64_t expectedMemory(int parametersMillions, uint64_t weightBytesHeld) {
    return weightBytesHeld + uint64_t(parametersMillions) * kMB / 4 + 150 * kMB;
}

// File names; a trailing '?' marks an optional file.
CatalogEntry directoryEntry(const Size& s, ModelFormat format, std::string repo, std::vector<std::string> files,
                            const char* precision) {
    CatalogEntry e;
    e.name = s.name;
    e.size = s.name;
    e.format = format;
    e.repo = std::move(repo);
    e.revision = revisionOf(e.repo);
    for (auto& f : files) {
        const bool optional = !f.empty() && f.back() == '?';
        if (optional) f.pop_back();
        e.files.push_back({std::move(f), 0, "", optional});
    }
    e.precision = precision;
    e.englishOnly = s.englishOnly;
    e.parametersMillions = s.parametersMillions;
    const uint64_t bytesPerParameter = std::string_view(precision) == "f32" ? 4 : 2;
    e.diskBytes = uint64_t(s.parametersMillions) * kMB * bytesPerParameter;
    e.memoryBytes = expectedMemory(s.parametersMillions, uint64_t(s.parametersMillions) * kMB * 4);
    e.speed = s.speed;
    return e;
}

CatalogEntry ggmlEntry(const Size& s, const char* quant, uint64_t bytes, const char* sha256,
                       const char* repo = "ggerganov/whisper.cpp", const char* file = nullptr) {
    CatalogEntry e;
    e.revision = revisionOf(repo);
    const std::string q = quant;
    e.name = q.empty() ? std::string(s.name) : std::string(s.name) + "-" + q;
    e.size = s.name;
    e.format = ModelFormat::Ggml;
    e.repo = repo;
    e.files.push_back({file ? std::string(file) : "ggml-" + e.name + ".bin", bytes, sha256, false});
    e.precision = q.empty() ? "f16" : q;
    e.englishOnly = s.englishOnly;
    e.parametersMillions = s.parametersMillions;
    e.diskBytes = bytes ? bytes : uint64_t(s.parametersMillions) * kMB * 2;  // else an f16 estimate
    e.memoryBytes = expectedMemory(s.parametersMillions, q.empty() ? uint64_t(s.parametersMillions) * kMB * 4 : bytes);
    e.speed = s.speed;
    return e;
}

const std::vector<std::string> kHfFiles = {"config.json", "generation_config.json?", "model.safetensors",
                                           "tokenizer.json", "vocab.json?", "merges.txt?",
                                           "preprocessor_config.json?", "tokenizer_config.json?"};
const std::vector<std::string> kCt2Files = {"config.json", "model.bin", "tokenizer.json", "vocabulary.txt?"};
const std::vector<std::string> kCt2FilesV3 = {"config.json", "model.bin", "preprocessor_config.json?",
                                              "tokenizer.json", "vocabulary.json?"};

std::vector<CatalogEntry> build() {
    const Size tiny{"tiny", 39, "~10x large", false}, tinyEn{"tiny.en", 39, "~10x large", true};
    const Size base{"base", 74, "~7x large", false}, baseEn{"base.en", 74, "~7x large", true};
    const Size small{"small", 244, "~4x large", false}, smallEn{"small.en", 244, "~4x large", true};
    const Size medium{"medium", 769, "~2x large", false}, mediumEn{"medium.en", 769, "~2x large", true};
    const Size largeV3{"large-v3", 1550, "1x (reference)", false};
    const Size turbo{"large-v3-turbo", 809, "~8x large", false};
    const Size distil{"distil-large-v3", 756, "~6x large-v3", true};
    const Size distil35{"distil-large-v3.5", 756, "~6x large-v3", true};

    std::vector<CatalogEntry> c;
    auto standard = [&](const Size& s) {
        const std::string n = s.name;
        c.push_back(directoryEntry(s, ModelFormat::CTranslate2, "Systran/faster-whisper-" + n, kCt2Files, "f16"));
        c.push_back(directoryEntry(s, ModelFormat::HuggingFace, "openai/whisper-" + n, kHfFiles, "f32"));
    };
    standard(tiny);
    c.push_back(ggmlEntry(tiny, "", 77'691'713, "be07e048e1e599ad46341c8d2a135645097a538221678b7acdd1b1919c6e1b21"));
    c.push_back(ggmlEntry(tiny, "q5_1", 32'152'673, "818710568da3ca15689e31a743197b520007872ff9576237bda97bd1b469c3d7"));
    c.push_back(ggmlEntry(tiny, "q8_0", 43'537'433, "c2085835d3f50733e2ff6e4b41ae8a2b8d8110461e18821b09a15c40c42d1cca"));
    standard(tinyEn);
    c.push_back(ggmlEntry(tinyEn, "", 77'704'715, "921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f"));
    c.push_back(ggmlEntry(tinyEn, "q5_1", 32'166'155, "c77c5766f1cef09b6b7d47f21b546cbddd4157886b3b5d6d4f709e91e66c7c2b"));
    c.push_back(ggmlEntry(tinyEn, "q8_0", 43'550'795, "5bc2b3860aa151a4c6e7bb095e1fcce7cf12c7b020ca08dcec0c6d018bb7dd94"));
    standard(base);
    c.push_back(ggmlEntry(base, "", 147'951'465, "60ed5bc3dd14eea856493d334349b405782ddcaf0028d4b5df4088345fba2efe"));
    c.push_back(ggmlEntry(base, "q5_1", 59'707'625, "422f1ae452ade6f30a004d7e5c6a43195e4433bc370bf23fac9cc591f01a8898"));
    c.push_back(ggmlEntry(base, "q8_0", 81'768'585, "c577b9a86e7e048a0b7eada054f4dd79a56bbfa911fbdacf900ac5b567cbb7d9"));
    standard(baseEn);
    c.push_back(ggmlEntry(baseEn, "", 147'964'211, "a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002"));
    c.push_back(ggmlEntry(baseEn, "q5_1", 59'721'011, "4baf70dd0d7c4247ba2b81fafd9c01005ac77c2f9ef064e00dcf195d0e2fdd2f"));
    c.push_back(ggmlEntry(baseEn, "q8_0", 81'781'811, "a4d4a0768075e13cfd7e19df3ae2dbc4a68d37d36a7dad45e8410c9a34f8c87e"));
    standard(small);
    c.push_back(ggmlEntry(small, "", 487'601'967, "1be3a9b2063867b937e64e2ec7483364a79917e157fa98c5d94b5c1fffea987b"));
    c.push_back(ggmlEntry(small, "q5_1", 190'085'487, "ae85e4a935d7a567bd102fe55afc16bb595bdb618e11b2fc7591bc08120411bb"));
    c.push_back(ggmlEntry(small, "q8_0", 264'464'607, "49c8fb02b65e6049d5fa6c04f81f53b867b5ec9540406812c643f177317f779f"));
    standard(smallEn);
    c.push_back(ggmlEntry(smallEn, "", 487'614'201, "c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d"));
    c.push_back(ggmlEntry(smallEn, "q5_1", 190'098'681, "bfdff4894dcb76bbf647d56263ea2a96645423f1669176f4844a1bf8e478ad30"));
    c.push_back(ggmlEntry(smallEn, "q8_0", 264'477'561, "67a179f608ea6114bd3fdb9060e762b588a3fb3bd00c4387971be4d177958067"));
    standard(medium);
    c.push_back(ggmlEntry(medium, "", 1'533'763'059, "6c14d5adee5f86394037b4e4e8b59f1673b6cee10e3cf0b11bbdbee79c156208"));
    c.push_back(ggmlEntry(medium, "q5_0", 539'212'467, "19fea4b380c3a618ec4723c3eef2eb785ffba0d0538cf43f8f235e7b3b34220f"));
    c.push_back(ggmlEntry(medium, "q8_0", 823'369'779, "42a1ffcbe4167d224232443396968db4d02d4e8e87e213d3ee2e03095dea6502"));
    standard(mediumEn);
    c.push_back(ggmlEntry(mediumEn, "", 1'533'774'781, "cc37e93478338ec7700281a7ac30a10128929eb8f427dda2e865faa8f6da4356"));
    c.push_back(ggmlEntry(mediumEn, "q5_0", 539'225'533, "76733e26ad8fe1c7a5bf7531a9d41917b2adc0f20f2e4f5531688a8c6cd88eb0"));
    c.push_back(ggmlEntry(mediumEn, "q8_0", 823'382'461, "43fa2cd084de5a04399a896a9a7a786064e221365c01700cea4666005218f11c"));

    c.push_back(directoryEntry(largeV3, ModelFormat::CTranslate2, "Systran/faster-whisper-large-v3", kCt2FilesV3, "f16"));
    c.push_back(directoryEntry(largeV3, ModelFormat::HuggingFace, "openai/whisper-large-v3", kHfFiles, "f16"));
    c.push_back(ggmlEntry(largeV3, "", 3'095'033'483, "64d182b440b98d5203c4f9bd541544d84c605196c4f7b845dfa11fb23594d1e2"));
    c.push_back(ggmlEntry(largeV3, "q5_0", 1'081'140'203, "d75795ecff3f83b5faa89d1900604ad8c780abd5739fae406de19f23ecd98ad1"));

    // (moved from mobiuslabsgmbh/faster-whisper-large-v3-turbo)
    c.push_back(directoryEntry(turbo, ModelFormat::CTranslate2, "dropbox-dash/faster-whisper-large-v3-turbo", kCt2FilesV3, "f16"));
    c.push_back(directoryEntry(turbo, ModelFormat::HuggingFace, "openai/whisper-large-v3-turbo", kHfFiles, "f16"));
    c.push_back(ggmlEntry(turbo, "", 1'624'555'275, "1fc70f774d38eb169993ac391eea357ef47c88757ef72ee5943879b7e8e2bc69"));
    c.push_back(ggmlEntry(turbo, "q5_0", 574'041'195, "394221709cd5ad1f40c46e6031ca61bce88931e6e088c188294c6d5a55ffa7e2"));
    c.push_back(ggmlEntry(turbo, "q8_0", 874'188'075, "317eb69c11673c9de1e1f0d459b253999804ec71ac4c23c17ecf5fbe24e259a1"));

    c.push_back(directoryEntry(distil, ModelFormat::CTranslate2, "Systran/faster-distil-whisper-large-v3", kCt2FilesV3, "f16"));
    c.push_back(directoryEntry(distil, ModelFormat::HuggingFace, "distil-whisper/distil-large-v3", kHfFiles, "f16"));
    c.push_back(ggmlEntry(distil, "", 1'519'521'155, "", "distil-whisper/distil-large-v3-ggml", "ggml-distil-large-v3.bin"));

    c.push_back(directoryEntry(distil35, ModelFormat::CTranslate2, "distil-whisper/distil-large-v3.5-ct2", kCt2FilesV3, "f16"));
    c.push_back(directoryEntry(distil35, ModelFormat::HuggingFace, "distil-whisper/distil-large-v3.5", kHfFiles, "f16"));
    c.push_back(ggmlEntry(distil35, "", 0, "", "distil-whisper/distil-large-v3.5-ggml", "ggml-model.bin"));
    return c;
}

} // namespace

const std::vector<CatalogEntry>& catalog() {
    static const std::vector<CatalogEntry> entries = build();
    return entries;
}

} // namespace hearsay::hub
