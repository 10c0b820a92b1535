// The tokenizer against tiktoken on the real Whisper vocabularies (golden files written by
// tests/reference/gen_tokenizer_golden.py), plus special tokens, languages, streaming UTF-8
// decoding, and the vocabulary readers on real and corrupt files.
#include "core/text/byte_unicode.h"
#include "core/text/pretokenizer.h"
#include "core/text/token_table.h"
#include "core/text/tokenizer.h"
#include "core/text/unicode_class.h"
#include "core/text/vocabulary_file.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <malloc.h>
#include <map>
#include <random>
#include <set>

using nlohmann::json;

using namespace hearsay;

namespace {

const std::string kGoldenDir = std::string(HEARSAY_TEST_DATA_DIR) + "/tokenizer/";
const std::string kSharedDir = std::string(HEARSAY_SHARED_DATA_DIR) + "/";

json loadJson(const std::string& path) {
    Result<std::string> text = readTextFile(path);
    if (!text) qFatal("%s", text.message().c_str());
    Result<json> document = parseJson(text.value());
    if (!document) qFatal("%s: %s", path.c_str(), document.message().c_str());
    return document.value();
}

std::vector<int> toIds(const json& array) {
    std::vector<int> ids;
    for (const json& v : array) ids.push_back(v.is_number_integer() ? v.get<int>() : -1);
    return ids;
}

std::string fromHex(const std::string& hex) {
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

std::string toHex(std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string idsText(const std::vector<int>& ids) {
    std::string s = "[";
    for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
    return s + "]";
}

// FNV-1a over each token's uint32 length (little-endian) and bytes, as the script computes it.
std::string fingerprint(const std::vector<std::string>& tokens) {
    uint64_t h = 0xCBF29CE484222325ull;
    const auto mix = [&](unsigned char b) { h = (h ^ b) * 0x100000001B3ull; };
    for (const std::string& t : tokens) {
        const auto n = static_cast<uint32_t>(t.size());
        for (int k = 0; k < 4; ++k) mix(static_cast<unsigned char>(n >> (8 * k)));
        for (unsigned char c : t) mix(c);
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

// Bytes the allocator has handed out and not taken back (small blocks and those it mapped).
size_t heapInUse() {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

void writeFile(const QString& path, std::string_view bytes) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool isAscii(std::string_view s) {
    for (unsigned char c : s) {
        if (c >= 0x80) return false;
    }
    return true;
}

struct VocabularyCase {
    std::string ggmlFile;
    int nVocab;
};
const std::map<std::string, VocabularyCase> kVocabularies = {
    {"gpt2", {"ggml-vocab-tiny.en.bin", 51864}},
    {"multilingual", {"ggml-vocab-tiny.bin", 51865}},
};

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

    json m_corpus;
    json m_reference;
    json m_repairs;
    std::map<std::string, std::vector<std::string>> m_exactTokens;  // ggml vocabulary with its lost tokens restored
    std::map<std::string, Tokenizer> m_tokenizers;                  // from the exact vocabularies

    std::vector<std::string> corpus() const {
        std::vector<std::string> out;
        for (const json& s : m_corpus["strings"]) out.push_back(s.get<std::string>());
        return out;
    }
    const Tokenizer& tokenizer(const std::string& name) const { return m_tokenizers.at(name); }

private slots:
    void initTestCase() {
        m_corpus = loadJson(kGoldenDir + "corpus.json");
        m_reference = loadJson(kGoldenDir + "reference.json");
        m_repairs = loadJson(kGoldenDir + "ggml_repairs.json");
        QVERIFY(m_corpus["strings"].size() >= 1000);
        for (const auto& [name, c] : kVocabularies) {
            Result<std::vector<std::string>> tokens = readGgmlVocabulary(kSharedDir + c.ggmlFile);
            QVERIFY2(tokens.ok(), tokens.ok() ? "" : tokens.message().c_str());
            // Restore the tokens the ggml file stored as U+FFFD, then the vocabulary must be
            // openai-whisper's tiktoken file exactly.
            const json& repair = m_repairs[name];
            std::vector<std::string> exact = tokens.value();
            exact.resize(static_cast<size_t>(repair["ordinary"].get<int64_t>()));
            const std::vector<int> ids = toIds(repair["ids"]);
            const json& bytes = repair["bytes_hex"];
            QCOMPARE(ids.size(), bytes.size());
            for (size_t i = 0; i < ids.size(); ++i) exact[size_t(ids[i])] = fromHex(bytes[i].get<std::string>());
            QCOMPARE(fingerprint(exact), repair["fingerprint"].get<std::string>());
            m_exactTokens[name] = exact;

            Result<Tokenizer> t = Tokenizer::fromVocabulary(exact, c.nVocab);
            QVERIFY2(t.ok(), t.ok() ? "" : t.message().c_str());
            QCOMPARE(t->restoredTokenCount(), 0);
            QCOMPARE(t->lostTokenCount(), 0);
            m_tokenizers.emplace(name, t.value());
        }
        qInfo("Unicode tables: %s", unicodeTablesVersion());
    }

    // ---- the ggml vocabulary reader ------------------------------------------------------

    void readsGgmlVocabularies() {
        for (const auto& [name, c] : kVocabularies) {
            const std::string path = kSharedDir + c.ggmlFile;
            Result<std::shared_ptr<const MappedFile>> file = MappedFile::open(path);
            QVERIFY(file.ok());
            Result<GgmlVocabulary> v = parseGgmlVocabulary(file.value()->bytes(), path);
            QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
            QCOMPARE(v->nVocab, c.nVocab);
            QCOMPARE(v->tokens.size(), size_t(50257));
            QCOMPARE(v->endOffset, file.value()->size());  // these files hold no tensors
            QCOMPARE(v->tokens[0], std::string("!"));
            QCOMPARE(v->tokens[1], std::string("\""));
            QCOMPARE(v->tokens[220], std::string(" "));
            QCOMPARE(v->tokens[198], std::string("\n"));
        }
        Result<std::vector<std::string>> en = readGgmlVocabulary(kSharedDir + "ggml-vocab-tiny.en.bin");
        QVERIFY(en.ok());
        QCOMPARE(en.value()[50256], std::string("<|endoftext|>"));
    }

    void rejectsCorruptGgmlFiles_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<qint64>("cut");
        QTest::addColumn<QString>("expected");
        // kind 0: truncate the real file to `cut` bytes; 1: patch the int32 at `cut` to -1;
        // 2: patch it to 0x7fffffff; 3: wrong magic.
        QTest::newRow("empty") << 0 << qint64(0) << "truncated ggml file: the magic number";
        QTest::newRow("half magic") << 0 << qint64(2) << "truncated ggml file: the magic number";
        QTest::newRow("in hparams") << 0 << qint64(20) << "the hyperparameters";
        QTest::newRow("before filterbank") << 0 << qint64(50) << "the filterbank's n_mel";
        QTest::newRow("in filterbank") << 0 << qint64(5000) << "the mel filterbank";
        QTest::newRow("before count") << 0 << qint64(56 + 80 * 201 * 4 + 2) << "the vocabulary count";
        QTest::newRow("vocabulary cut off") << 0 << qint64(56 + 80 * 201 * 4 + 4 + 2) << "does not fit";
        QTest::newRow("in vocabulary") << 0 << qint64(300000) << "truncated ggml file: a token";
        QTest::newRow("in a token") << 0 << qint64(300003) << "truncated ggml file: a token";
        QTest::newRow("last byte missing") << 0 << qint64(-1) << "truncated ggml file: a token";
        QTest::newRow("negative n_vocab") << 1 << qint64(4) << "n_vocab is -1";
        QTest::newRow("negative n_mel") << 1 << qint64(48) << "negative size";
        QTest::newRow("huge n_fft") << 2 << qint64(52) << "the mel filterbank";
        QTest::newRow("negative count") << 1 << qint64(56 + 80 * 201 * 4) << "the vocabulary count is -1";
        QTest::newRow("huge count") << 2 << qint64(56 + 80 * 201 * 4) << "the vocabulary count";
        QTest::newRow("huge token length") << 2 << qint64(56 + 80 * 201 * 4 + 4) << "a token's bytes";
        QTest::newRow("bad magic") << 3 << qint64(0) << "not a whisper.cpp ggml file";
    }
    void rejectsCorruptGgmlFiles() {
        QFETCH(int, kind);
        QFETCH(qint64, cut);
        QFETCH(QString, expected);
        std::string bytes = readBytes(kSharedDir + "ggml-vocab-tiny.bin");
        QVERIFY(bytes.size() > 500000);
        if (kind == 0) bytes.resize(cut < 0 ? bytes.size() - size_t(-cut) : size_t(cut));
        if (kind == 1 || kind == 2) {
            const uint32_t v = kind == 1 ? 0xFFFFFFFFu : 0x7FFFFFFFu;
            for (int k = 0; k < 4; ++k) bytes[size_t(cut) + size_t(k)] = static_cast<char>(v >> (8 * k));
        }
        if (kind == 3) bytes[0] = 'X';
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.bin");
        writeFile(path, bytes);
        Result<std::vector<std::string>> v = readGgmlVocabulary(path.toStdString());
        QVERIFY(!v.ok());
        QVERIFY2(v.message().find(path.toStdString()) != std::string::npos, v.message().c_str());
        QVERIFY2(v.message().find(expected.toStdString()) != std::string::npos, v.message().c_str());
    }

    void reportsMissingFile() {
        Result<std::vector<std::string>> v = readGgmlVocabulary("/nonexistent/model.bin");
        QVERIFY(!v.ok());
        QVERIFY(v.message().find("/nonexistent/model.bin") != std::string::npos);
    }

    // ---- agreement with tiktoken -----------------------------------------------------------

    void encodesLikeTiktoken_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("gpt2") << "gpt2";
        QTest::newRow("multilingual") << "multilingual";
    }
    void encodesLikeTiktoken() {
        QFETCH(QString, name);
        const Tokenizer& t = tokenizer(name.toStdString());
        const std::vector<std::string> strings = corpus();
        const json golden = loadJson(kGoldenDir + "encode_" + name.toStdString() + ".json");
        const json& expected = golden["ids"];
        QCOMPARE(expected.size(), strings.size());
        size_t agree = 0;
        size_t tokens = 0;
        for (size_t i = 0; i < strings.size(); ++i) {
            const std::vector<int> want = toIds(expected[i]);
            const std::vector<int> got = t.encode(strings[i]);
            tokens += want.size();
            if (got == want) ++agree;
            else if (i + 1 - agree <= 5) {
                qWarning("mismatch on %s: got %s, want %s", toHex(strings[i]).c_str(), idsText(got).c_str(),
                         idsText(want).c_str());
            }
        }
        qInfo("encode, %s: %zu of %zu strings (%zu tokens) identical to tiktoken", qPrintable(name), agree,
              strings.size(), tokens);
        QCOMPARE(agree, strings.size());
    }

    void decodesLikeTiktoken_data() { encodesLikeTiktoken_data(); }
    void decodesLikeTiktoken() {
        QFETCH(QString, name);
        const Tokenizer& t = tokenizer(name.toStdString());
        const json golden = loadJson(kGoldenDir + "decode_" + name.toStdString() + ".json");
        const json& ids = golden["ids"];
        const json& bytes = golden["bytes_hex"];
        const json& texts = golden["text"];
        QVERIFY(ids.size() >= 1000);
        size_t bytesAgree = 0;
        size_t textAgree = 0;
        size_t streamAgree = 0;
        size_t specials = 0;
        for (size_t i = 0; i < ids.size(); ++i) {
            const std::vector<int> seq = toIds(ids[i]);
            for (int id : seq) specials += t.special().isSpecial(id);
            if (toHex(t.decodeBytes(seq)) == bytes[i].get<std::string>()) ++bytesAgree;
            else qWarning("bytes of %s: got %s", idsText(seq).c_str(), toHex(t.decodeBytes(seq)).c_str());
            if (t.decode(seq) == texts[i].get<std::string>()) ++textAgree;
            else qWarning("text of %s: got %s", idsText(seq).c_str(), toHex(t.decode(seq)).c_str());
            // Streaming: the pieces, as they become complete, add up to the same text.
            Utf8StreamDecoder stream(t);
            std::string streamed;
            for (int id : seq) streamed += stream.push(id);
            streamed += stream.flush();
            if (streamed == texts[i].get<std::string>()) ++streamAgree;
            else qWarning("stream of %s: got %s", idsText(seq).c_str(), toHex(streamed).c_str());
        }
        qInfo("decode, %s: %zu of %zu id sequences give tiktoken's bytes, %zu its errors=\"replace\" text, "
              "%zu the same text streamed (%zu special tokens among them)",
              qPrintable(name), bytesAgree, ids.size(), textAgree, streamAgree, specials);
        QCOMPARE(bytesAgree, ids.size());
        QCOMPARE(textAgree, ids.size());
        QCOMPARE(streamAgree, ids.size());
        QVERIFY(specials > 100);
    }

    void roundTrips_data() { encodesLikeTiktoken_data(); }
    void roundTrips() {
        QFETCH(QString, name);
        const Tokenizer& t = tokenizer(name.toStdString());
        for (const std::string& s : corpus()) QCOMPARE(t.decode(t.encode(s)), s);
        // Byte-level BPE is lossless for any bytes, valid UTF-8 or not.
        std::mt19937 rng(7);
        for (int n = 0; n < 300; ++n) {
            std::string bytes(rng() % 40, '\0');
            for (char& c : bytes) c = static_cast<char>(rng() % 256);
            const std::vector<int> ids = t.encode(bytes);
            for (int id : ids) QVERIFY(id >= 0 && id < t.special().eot);
            QCOMPARE(toHex(t.decodeBytes(ids)), toHex(bytes));
        }
    }

    // A long run without spaces is one piece; the merge loop must stay fast and exact on it.
    void encodesLongPieces() {
        const Tokenizer& t = tokenizer("multilingual");
        std::string text;
        for (int i = 0; i < 20000; ++i) text += "abcdefghij"[i % 10];
        const std::vector<int> ids = t.encode(text);
        QCOMPARE(t.decodeBytes(ids), text);
        QCOMPARE(ids.size(), size_t(10000));  // what tiktoken 0.12 gives for this text
    }

    void splitsLikeTheGpt2Pattern_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArrayList>("pieces");
        QTest::newRow("words") << QByteArray("Hello world") << QByteArrayList{"Hello", " world"};
        QTest::newRow("two spaces") << QByteArray("a  b") << QByteArrayList{"a", " ", " b"};
        QTest::newRow("newlines") << QByteArray("a\n\nb") << QByteArrayList{"a", "\n", "\n", "b"};
        QTest::newRow("newlines at end") << QByteArray("a\n\n") << QByteArrayList{"a", "\n\n"};
        QTest::newRow("newline space") << QByteArray("a\n b") << QByteArrayList{"a", "\n", " b"};
        QTest::newRow("trailing") << QByteArray("a   ") << QByteArrayList{"a", "   "};
        QTest::newRow("tab before word") << QByteArray("\tx") << QByteArrayList{"\t", "x"};
        QTest::newRow("contraction") << QByteArray("I'm") << QByteArrayList{"I", "'m"};
        QTest::newRow("upper contraction") << QByteArray("I'M") << QByteArrayList{"I", "'", "M"};
        QTest::newRow("'ll then letters") << QByteArray("'llama") << QByteArrayList{"'ll", "ama"};
        QTest::newRow("space quote") << QByteArray(" 's") << QByteArrayList{" '", "s"};
        QTest::newRow("digits") << QByteArray("abc123 456") << QByteArrayList{"abc", "123", " 456"};
        QTest::newRow("punctuation run") << QByteArray("Hi!!! ?") << QByteArrayList{"Hi", "!!!", " ?"};
        QTest::newRow("nbsp is space") << QByteArray("a\xC2\xA0" "b") << QByteArrayList{"a", "\xC2\xA0", "b"};
        QTest::newRow("U+001F is not") << QByteArray("a\x1F" "b") << QByteArrayList{"a", "\x1F", "b"};
        QTest::newRow("combining mark") << QByteArray("e\xCC\x81t") << QByteArrayList{"e", "\xCC\x81", "t"};
        QTest::newRow("invalid byte") << QByteArray("a\xFF\xFE!b") << QByteArrayList{"a", "\xFF\xFE!", "b"};
    }
    void splitsLikeTheGpt2Pattern() {
        QFETCH(QByteArray, text);
        QFETCH(QByteArrayList, pieces);
        QByteArrayList got;
        forEachGpt2Piece(std::string_view(text.constData(), size_t(text.size())),
                         [&](std::string_view p) { got.append(QByteArray(p.data(), qsizetype(p.size()))); });
        QCOMPARE(got, pieces);
    }

    void classifiesCharacters() {
        QCOMPARE(charClass(U'a'), CharClass::Letter);
        QCOMPARE(charClass(U'7'), CharClass::Number);
        QCOMPARE(charClass(U' '), CharClass::Space);
        QCOMPARE(charClass(U'!'), CharClass::Other);
        QCOMPARE(charClass(0x4E2D), CharClass::Letter);   // 中
        QCOMPARE(charClass(0x0661), CharClass::Number);   // Arabic-Indic one
        QCOMPARE(charClass(0x2163), CharClass::Number);   // Roman numeral four (Nl)
        QCOMPARE(charClass(0x3000), CharClass::Space);    // ideographic space
        QCOMPARE(charClass(0x200B), CharClass::Other);    // zero width space is not White_Space
        QCOMPARE(charClass(0x1C), CharClass::Other);      // Python's isspace() says yes, Rust's \s no
        QCOMPARE(charClass(0x0301), CharClass::Other);    // combining acute (Mn)
        QCOMPARE(charClass(0x1F600), CharClass::Other);   // 😀
        QCOMPARE(charClass(0x1C89), CharClass::Letter);   // new in Unicode 16, as tiktoken 0.12 knows
        QCOMPARE(charClass(0x10FFFF), CharClass::Other);
        QCOMPARE(charClass(0x110000), CharClass::Other);
    }

    // ---- streaming decoder -----------------------------------------------------------------

    void streamsSplitCharacters() {
        const Tokenizer& t = tokenizer("multilingual");
        const auto byteToken = [&](unsigned char b) { return t.encode(std::string(1, char(b)))[0]; };
        // "€" (E2 82 AC) arriving one byte at a time shows nothing until it is complete.
        Utf8StreamDecoder s(t);
        QCOMPARE(s.push(t.encode("a")[0]), std::string("a"));
        QCOMPARE(s.push(byteToken(0xE2)), std::string());
        QCOMPARE(s.push(byteToken(0x82)), std::string());
        QCOMPARE(s.push(byteToken(0xAC)), std::string("\xE2\x82\xAC"));
        // An emoji split over two tokens.
        QCOMPARE(s.push(byteToken(0xF0)), std::string());
        QCOMPARE(s.push(byteToken(0x9F)), std::string());
        const std::vector<int> tail = t.encode("\x98\x80 ok");
        std::string rest;
        for (int id : tail) rest += s.push(id);
        QCOMPARE(rest, std::string("\xF0\x9F\x98\x80 ok"));
        // A character that never completes: replaced once a non-continuation byte shows up.
        QCOMPARE(s.push(byteToken(0xE2)), std::string());
        QCOMPARE(s.push(byteToken(0x82)), std::string());
        QCOMPARE(s.push(t.encode("!")[0]), std::string("\xEF\xBF\xBD!"));
        // ... or at flush().
        QCOMPARE(s.push(byteToken(0xF0)), std::string());
        QCOMPARE(s.flush(), std::string("\xEF\xBF\xBD"));
        QCOMPARE(s.flush(), std::string());
        // Invalid bytes that can never start a character are replaced at once.
        QCOMPARE(s.push(byteToken(0xFF)), std::string("\xEF\xBF\xBD"));
        // Special tokens come through as their text.
        QCOMPARE(s.push(t.special().eot), std::string("<|endoftext|>"));
        // Real text whose tokens split characters ("안녕" is [EC 95 88 EB] [85 95]; hieroglyphs go
        // byte by byte): never a replacement character, and everything shown in the end.
        for (const std::string word : {"안녕하세요 世界", "𓀀𓀁 ꙮ", "ᏣᎳᎩ ሰላም"}) {
            Utf8StreamDecoder w(t);
            std::string shown;
            int heldBack = 0;
            for (int id : t.encode(word)) {
                const std::string piece = w.push(id);
                heldBack += piece != t.tokenBytes(id);
                shown += piece;
                QVERIFY(piece.find("\xEF\xBF\xBD") == std::string::npos);
            }
            shown += w.flush();
            QCOMPARE(shown, word);
            QVERIFY(heldBack > 0);  // the characters really were split across tokens
        }
    }

    // ---- special tokens, languages ---------------------------------------------------------

    void specialTokens_data() {
        QTest::addColumn<int>("nVocab");
        QTest::newRow("English-only") << 51864;
        QTest::newRow("multilingual") << 51865;
        QTest::newRow("large-v3") << 51866;
    }
    void specialTokens() {
        QFETCH(int, nVocab);
        const json& ref = m_reference["vocabularies"][std::to_string(nVocab)];
        QVERIFY(ref.is_object());
        const SpecialTokens s = SpecialTokens::forVocabularySize(nVocab);
        QCOMPARE(s.eot, int(ref["eot"].get<int64_t>()));
        QCOMPARE(s.sot, int(ref["sot"].get<int64_t>()));
        QCOMPARE(s.translate, int(ref["translate"].get<int64_t>()));
        QCOMPARE(s.transcribe, int(ref["transcribe"].get<int64_t>()));
        QCOMPARE(s.startOfLm, int(ref["startoflm"].get<int64_t>()));
        QCOMPARE(s.startOfPrev, int(ref["startofprev"].get<int64_t>()));
        QCOMPARE(s.noSpeech, int(ref["nospeech"].get<int64_t>()));
        QCOMPARE(s.noTimestamps, int(ref["notimestamps"].get<int64_t>()));
        QCOMPARE(s.timestampBegin, int(ref["timestamp_begin"].get<int64_t>()));
        QCOMPARE(s.vocabularySize(), nVocab);
        const std::vector<int> languageTokens = toIds(ref["language_tokens"]);
        QCOMPARE(s.languageCount, int(languageTokens.size()));
        QCOMPARE(s.firstLanguage, languageTokens.front());

        const std::string ranks = ref["ranks"].get<std::string>();
        Result<Tokenizer> made = Tokenizer::fromVocabulary(m_exactTokens.at(ranks), nVocab);
        QVERIFY(made.ok());
        const Tokenizer& t = made.value();
        QCOMPARE(t.vocabularySize(), nVocab);
        QCOMPARE(t.isMultilingual(), nVocab >= 51865);
        // Every special token's text, in id order.
        const json& texts = ref["special_texts"];
        QCOMPARE(int(ref["first_special"].get<int64_t>()), s.eot);
        QCOMPARE(int(texts.size()), nVocab - s.eot);
        for (size_t i = 0; i < texts.size(); ++i) {
            const int id = s.eot + int(i);
            QCOMPARE(t.tokenText(id), texts[i].get<std::string>());
            QCOMPARE(t.tokenBytes(id), texts[i].get<std::string>());
            QVERIFY(t.special().isSpecial(id));
        }
        // The multilingual vocabulary's last ordinary token is empty (so it is in tiktoken too).
        QCOMPARE(t.tokenBytes(s.eot - 1).empty(), t.isMultilingual());
        QCOMPARE(t.tokenText(s.timestampBegin + 21), std::string("<|0.42|>"));
        QCOMPARE(t.tokenText(s.timestampBegin + 1500), std::string("<|30.00|>"));
        QVERIFY(t.tokenText(nVocab).empty());
        QCOMPARE(t.decode({-5, nVocab, s.eot, 1 << 30}), std::string("<|endoftext|>"));
        QVERIFY(t.tokenText(-1).empty());
        QVERIFY(!t.special().isSpecial(s.eot - 1));
        QVERIFY(t.special().isTimestamp(s.timestampBegin) && !t.special().isTimestamp(s.noTimestamps));
        // Language tokens and codes.
        const json& codes = ref["language_codes"];
        for (size_t i = 0; i < codes.size(); ++i) {
            QCOMPARE(t.languageToken(codes[i].get<std::string>()), languageTokens[i]);
            QCOMPARE(std::string(t.languageCode(languageTokens[i])), codes[i].get<std::string>());
            QCOMPARE(t.tokenText(languageTokens[i]), "<|" + codes[i].get<std::string>() + "|>");
        }
        QCOMPARE(t.languageToken("english"), s.firstLanguage);
        QCOMPARE(t.languageToken("yue") >= 0, nVocab == 51866);
        QCOMPARE(t.languageToken("klingon"), -1);
        QVERIFY(t.languageCode(s.sot).empty());
        QVERIFY(t.languageCode(s.translate).empty());
        // Non-speech tokens, as OpenAI's Tokenizer.non_speech_tokens computes them.
        QCOMPARE(t.nonSpeechTokens(), toIds(ref["non_speech_tokens"]));
        QVERIFY(t.nonSpeechTokens().size() > 50);
    }

    void languageTable() {
        const json& ref = m_reference["languages"];
        const std::vector<Language>& languages = whisperLanguages();
        QCOMPARE(languages.size(), ref.size());
        QCOMPARE(languages.size(), size_t(100));
        for (size_t i = 0; i < ref.size(); ++i) {
            QCOMPARE(std::string(languages[i].code), ref[i][0].get<std::string>());
            QCOMPARE(std::string(languages[i].name), ref[i][1].get<std::string>());
                QCOMPARE(languageIndex(languages[i].code).value_or(-1), int(i));
            QCOMPARE(languageIndex(languages[i].name).value_or(-1), int(i));
        }
        for (const auto& [name, code] : m_reference["language_aliases"].items()) {
            QVERIFY(languageIndex(name).has_value());
            QCOMPARE(languageIndex(name).value_or(-1), languageIndex(code.get<std::string>()).value_or(-2));
        }
        QCOMPARE(languageIndex("English").value_or(-1), 0);
        QCOMPARE(languageIndex("EN").value_or(-1), 0);
        QCOMPARE(languageIndex("yue").value_or(-1), 99);
        QCOMPARE(languageIndex("mandarin").value_or(-1), 1);
        QVERIFY(!languageIndex("").has_value());
        QVERIFY(!languageIndex("xx").has_value());
    }

    // ---- vocabularies as files and as given ------------------------------------------------

    // The ggml test files lost the bytes of tokens that are not valid UTF-8; the tokenizer still
    // builds, restores the single bytes, and keeps ASCII text exact.
    void acceptsLossyGgmlVocabulary_data() { encodesLikeTiktoken_data(); }
    void acceptsLossyGgmlVocabulary() {
        QFETCH(QString, name);
        const VocabularyCase& c = kVocabularies.at(name.toStdString());
        Result<std::vector<std::string>> tokens = readGgmlVocabulary(kSharedDir + c.ggmlFile);
        QVERIFY(tokens.ok());
        Result<Tokenizer> made = Tokenizer::fromVocabulary(tokens.value(), c.nVocab);
        QVERIFY2(made.ok(), made.ok() ? "" : made.message().c_str());
        const Tokenizer& lossy = made.value();
        QCOMPARE(lossy.restoredTokenCount(), 128);  // the bytes 0x80..0xFF
        // Every id it cannot use really was damaged in the file.
        const std::vector<int> damaged = toIds(m_repairs[name.toStdString()]["ids"]);
        const std::set<int> damagedSet(damaged.begin(), damaged.end());
        // Lost: damaged tokens that collide with another, and genuine tokens holding U+FFFD that
        // collide with a damaged one; never an intact token.
        int genuineReplacement = 0;
        for (const std::string& token : m_exactTokens.at(name.toStdString())) {
            genuineReplacement += token.find("\xEF\xBF\xBD") != std::string::npos;
        }
        QVERIFY(lossy.lostTokenCount() > 0);
        QVERIFY(lossy.lostTokenCount() <= int(damagedSet.size()) - 128 + genuineReplacement);
        const json golden = loadJson(kGoldenDir + "encode_" + name.toStdString() + ".json");
        const std::vector<std::string> strings = corpus();
        size_t ascii = 0;
        size_t agree = 0;
        for (size_t i = 0; i < strings.size(); ++i) {
            const std::vector<int> want = toIds(golden["ids"][i]);
            const std::vector<int> got = lossy.encode(strings[i]);
            agree += got == want;
            QCOMPARE(lossy.decodeBytes(got), strings[i]);
            if (isAscii(strings[i])) {
                ++ascii;
                QCOMPARE(got, want);
            }
        }
        qInfo("lossy %s: %d single bytes restored, %d tokens lost; %zu of %zu strings still identical to "
              "tiktoken (all %zu ASCII ones)", c.ggmlFile.c_str(), lossy.restoredTokenCount(),
              lossy.lostTokenCount(), agree, strings.size(), ascii);
        QVERIFY(ascii > 150);
    }

    void readsHuggingFaceFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("vocab.json") << "vocab.json";
        QTest::newRow("tokenizer.json") << "tokenizer.json";
    }
    void readsHuggingFaceFiles() {
        QFETCH(QString, file);
        // vocab.json as Hugging Face writes it: GPT-2 byte-unicode text -> id, with the special
        // tokens in it too; tokenizer.json keeps the same map under model.vocab.
        const std::vector<std::string>& exact = m_exactTokens.at("multilingual");
        json vocab = json::object();
        for (size_t id = 0; id < exact.size(); ++id) vocab[bytesToVocabText(exact[id])] = int64_t(id);
        vocab["<|endoftext|>"] = 50257;
        vocab["<|startoftranscript|>"] = 50258;
        json doc;
        if (file == "vocab.json") {
            doc = vocab;
        } else {
            doc["version"] = "1.0";
            doc["model"]["type"] = "BPE";
            doc["model"]["vocab"] = vocab;
            doc["model"]["merges"].push_back("Ġ t");
        }
        QTemporaryDir dir;
        writeFile(dir.filePath(file), doc.dump());
        writeFile(dir.filePath("merges.txt"), "#version: 0.2\nnot a merge list we use\n");
        Result<Tokenizer> t = Tokenizer::fromHuggingFaceDirectory(dir.path().toStdString(), 51865);
        QVERIFY2(t.ok(), t.ok() ? "" : t.message().c_str());
        const json golden = loadJson(kGoldenDir + "encode_multilingual.json");
        const std::vector<std::string> strings = corpus();
        for (size_t i = 0; i < strings.size(); ++i) QCOMPARE(t->encode(strings[i]), toIds(golden["ids"][i]));
        QCOMPARE(t->tokenText(50258), std::string("<|startoftranscript|>"));
    }

    void rejectsBadHuggingFaceFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no files") << "" << QByteArray() << "no vocab.json or tokenizer.json";
        QTest::newRow("truncated") << "vocab.json" << QByteArray("{\"!\": 0, \"\\\"\": 1") << "invalid JSON";
        QTest::newRow("not an object") << "vocab.json" << QByteArray("[1, 2]") << "not a JSON object";
        QTest::newRow("id not integer") << "vocab.json" << QByteArray("{\"!\": \"zero\"}") << "is not an integer";
        QTest::newRow("id too large") << "vocab.json" << QByteArray("{\"!\": 99999}") << "outside 0..51864";
        QTest::newRow("negative id") << "vocab.json" << QByteArray("{\"!\": -3}") << "outside";
        QTest::newRow("ids missing") << "vocab.json" << QByteArray("{\"!\": 0, \"#\": 2}") << "no token has id 1";
        QTest::newRow("duplicate id") << "vocab.json" << QByteArray("{\"!\": 0, \"#\": 0}") << "two tokens have id 0";
        QTest::newRow("outside alphabet") << "vocab.json" << QByteArray("{\"\xE4\xB8\xAD\": 0}")
                                          << "byte-to-unicode alphabet";
        // Text that is not UTF-8 is refused by the JSON reader already (RFC 8259), at its byte.
        QTest::newRow("broken UTF-8") << "vocab.json" << QByteArray("{\"\xC4X\": 0}") << "at byte 3: ";
        QTest::newRow("overlong UTF-8") << "vocab.json" << QByteArray("{\"\xE0\x84\x80\": 0}") << "ill-formed UTF-8";
        QTest::newRow("no model") << "tokenizer.json" << QByteArray("{\"version\": \"1.0\"}") << "no \"model\"";
        QTest::newRow("wrong model") << "tokenizer.json"
                                     << QByteArray("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}")
                                     << "expected \"BPE\"";
        QTest::newRow("no vocab") << "tokenizer.json" << QByteArray("{\"model\": {\"type\": \"BPE\"}}")
                                  << "no \"model.vocab\"";
        QTest::newRow("token too long") << "vocab.json" << ("{\"" + QByteArray(4097, 'a') + "\": 0}")
                                        << "token 0 is 4097 bytes long (at most 4096)";
    }
    void rejectsBadHuggingFaceFiles() {
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        if (!file.isEmpty()) writeFile(dir.filePath(file), std::string_view(content.constData(), size_t(content.size())));
        Result<Tokenizer> t = Tokenizer::fromHuggingFaceDirectory(dir.path().toStdString(), 51865);
        QVERIFY(!t.ok());
        QVERIFY2(t.message().find(expected.toStdString()) != std::string::npos, t.message().c_str());
        QVERIFY2(t.message().find(dir.path().toStdString()) != std::string::npos, t.message().c_str());
    }

    void rejectsBadVocabularies() {
        const std::vector<std::string>& exact = m_exactTokens.at("multilingual");
        // Each refused both ways: as strings, and as a table a model would share.
        const auto fails = [](std::vector<std::string> tokens, int nVocab, const std::string& expected) {
            const auto table = std::make_shared<const TokenTable>(tokens);
            for (Result<Tokenizer> t : {Tokenizer::fromVocabulary(std::move(tokens), nVocab), Tokenizer::fromVocabulary(table, nVocab)}) {
                if (t.ok()) return std::string("accepted");
                if (t.message().find(expected) == std::string::npos) return t.message();
            }
            return std::string();
        };
        QCOMPARE(fails(exact, 50000, "not a Whisper vocabulary"), std::string());
        QCOMPARE(fails(exact, 51864, "token 50256 is not a special token"), std::string());  // one too many
        QCOMPARE(fails({exact.begin(), exact.begin() + 1000}, 51865, "the vocabulary has 1000 tokens"), std::string());
        std::vector<std::string> broken = exact;
        broken[600] = broken[700];
        QCOMPARE(fails(broken, 51865, "have the same bytes"), std::string());
        broken = exact;
        broken[65] = "\x01\x02\x03 unique";  // id 65 is the byte 'b'
        QCOMPARE(fails(broken, 51865, "no token for the single byte 98"), std::string());
        broken = exact;
        broken[1000] = std::string(kMaxTokenBytes + 1, 'x');
        QCOMPARE(fails(broken, 51865, "bytes long (at most 4096)"), std::string());
        // The English vocabulary has 50256 ordinary tokens; with <|endoftext|> listed too it is fine.
        std::vector<std::string> english = m_exactTokens.at("gpt2");
        english.push_back("<|endoftext|>");
        QVERIFY(Tokenizer::fromVocabulary(english, 51864).ok());
        QVERIFY(Tokenizer::fromVocabulary(std::make_shared<const TokenTable>(english), 51864).ok());
        QVERIFY(!Tokenizer::fromVocabulary(std::shared_ptr<const TokenTable>(), 51865).ok());
    }

    // ---- memory ----------------------------------------------------------------------------

    // The vocabulary in one buffer: every token back as it went in, empty ones included, and
    // nothing but the bytes and an offset each on the heap.
    void tokenTableHoldsEachToken() {
        const std::vector<std::string>& exact = m_exactTokens.at("multilingual");
        std::vector<std::string> tokens = exact;
        tokens.insert(tokens.begin() + 3, "");
        tokens.push_back("");
        const TokenTable table(tokens);
        QCOMPARE(table.size(), tokens.size());
        QCOMPARE(table.strings(), tokens);
        QVERIFY(table[3].empty() && table[tokens.size() - 1].empty());
        QCOMPARE(std::string(table[4]), exact[3]);
        QVERIFY(table == TokenTable(tokens));
        QVERIFY(!(table == TokenTable(exact)));
        QVERIFY(TokenTable().empty() && TokenTable(std::vector<std::string>{}).strings().empty());
        size_t bytes = 0;
        for (const std::string& t : tokens) bytes += t.size();
        QCOMPARE(table.heapBytes(), bytes + tokens.size() * sizeof(uint32_t));
    }

    // What a tokenizer keeps once it is made: the bytes, an offset and a hash slot or two a token
    // (about 1 MiB for the multilingual vocabulary; the vector of strings and the hash map of
    // string views it replaced held 4.3 MiB). Measured as the heap the allocator reports in use
    // before and after, in this single-threaded test.
    void tokenizerHeapIsSmall() {
#ifdef HEARSAY_SANITIZED
        QSKIP("the sanitizers' allocator keeps a heap of its own, which mallinfo2 does not count");
#endif
        const std::vector<std::string>& exact = m_exactTokens.at("multilingual");
        const size_t before = heapInUse();
        std::optional<Tokenizer> made;
        {
            Result<Tokenizer> t = Tokenizer::fromVocabulary(exact, 51865);
            QVERIFY(t.ok());
            made.emplace(std::move(t).value());
        }
        const double kept = (double(heapInUse()) - double(before)) / 1048576.0;
        qInfo("a multilingual tokenizer keeps %.2f MiB of heap", kept);
        QVERIFY2(kept < 1.5, QByteArray::number(kept));
        const std::string text = "The cat's whiskers, 12 of them: \xE4\xB8\xAD\xE6\x96\x87!";
        QCOMPARE(made->encode(text), tokenizer("multilingual").encode(text));
        QCOMPARE(made->decode(made->encode(text)), text);
    }

    // A model's table (WhisperModel::sharedVocabulary) is kept, not copied: the tokenizer adds
    // only its index of the tokens to the heap, and owns the table with the model. A lossy table
    // (U+FFFD where bytes were lost) is repaired in a copy of its own, the model's left as it was.
    void tokenizerSharesATable_data() { encodesLikeTiktoken_data(); }
    void tokenizerSharesATable() {
        QFETCH(QString, name);
        const VocabularyCase& c = kVocabularies.at(name.toStdString());
        const auto table = std::make_shared<const TokenTable>(m_exactTokens.at(name.toStdString()));
        const size_t before = heapInUse();
        Result<Tokenizer> shared = Tokenizer::fromVocabulary(table, c.nVocab);
        const double kept = (double(heapInUse()) - double(before)) / 1048576.0;
        QVERIFY2(shared.ok(), shared.ok() ? "" : shared.message().c_str());
        QCOMPARE(table.use_count(), 2L);
        const std::vector<std::string> strings = corpus();
        for (const std::string& s : strings) {
            QCOMPARE(shared->encode(s), tokenizer(name.toStdString()).encode(s));
            QCOMPARE(shared->decodeBytes(shared->encode(s)), s);
        }
#ifndef HEARSAY_SANITIZED  // (their allocator is not the one mallinfo2 reads)
        qInfo("%s: a tokenizer on a shared table keeps %.2f MiB of heap", c.ggmlFile.c_str(), kept);
        QVERIFY2(kept < 0.75, QByteArray::number(kept));  // its own copy of the table: 1.0 MiB
#else
        Q_UNUSED(kept);
#endif

        Result<std::vector<std::string>> damaged = readGgmlVocabulary(kSharedDir + c.ggmlFile);
        QVERIFY(damaged.ok());
        const auto lossyTable = std::make_shared<const TokenTable>(damaged.value());
        Result<Tokenizer> repaired = Tokenizer::fromVocabulary(lossyTable, c.nVocab);
        QVERIFY2(repaired.ok(), repaired.ok() ? "" : repaired.message().c_str());
        QCOMPARE(lossyTable.use_count(), 1L);
        QCOMPARE(repaired->restoredTokenCount(), 128);
        QCOMPARE(*lossyTable, TokenTable(damaged.value()));
        Result<Tokenizer> fromStrings = Tokenizer::fromVocabulary(damaged.value(), c.nVocab);
        QVERIFY(fromStrings.ok());
        QCOMPARE(repaired->lostTokenCount(), fromStrings->lostTokenCount());
        for (const std::string& s : strings) QCOMPARE(repaired->encode(s), fromStrings->encode(s));
    }

    // ---- speed (printed, never asserted) ---------------------------------------------------

    void measuresSpeed() {
        const Tokenizer& t = tokenizer("multilingual");
        // About what a 30 s window of speech holds (~80 words), and the whole corpus.
        const std::string transcript =
            "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your "
            "country. My fellow citizens of the world, ask not what America will do for you, but what together we "
            "can do for the freedom of man. Finally, whether you are citizens of America or citizens of the world, "
            "ask of us here the same high standards of strength and sacrifice which we ask of you.";
        std::string all;
        for (const std::string& s : corpus()) all += s + "\n";
        for (const auto& [label, text] : {std::pair{"30 s transcript", transcript}, std::pair{"corpus", all}}) {
            const int repeats = label[0] == '3' ? 2000 : 20;
            size_t tokens = 0;
            const auto start = std::chrono::steady_clock::now();
            for (int r = 0; r < repeats; ++r) tokens += t.encode(text).size();
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            qInfo("encode %s: %zu tokens per pass, %.3f us/token, %.1f us per pass", label, tokens / size_t(repeats),
                  seconds * 1e6 / double(tokens), seconds * 1e6 / repeats);
        }
        const std::vector<int> ids = t.encode(all);
        const auto start = std::chrono::steady_clock::now();
        size_t bytes = 0;
        for (int r = 0; r < 20; ++r) {
            Utf8StreamDecoder s(t);
            for (int id : ids) bytes += s.push(id).size();
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        qInfo("stream decode: %.3f us/token (%zu bytes)", seconds * 1e6 / double(ids.size() * 20), bytes / 20);
    }
};

QTEST_APPLESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
