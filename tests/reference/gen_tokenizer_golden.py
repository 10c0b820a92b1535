#!/usr/bin/env python3
"""Golden files for tests/core/tst_tokenizer.cpp: tiktoken (the reference implementation's
tokenizer) on the real Whisper vocabularies, in both directions, plus special tokens, languages
and OpenAI's non_speech_tokens list.

The vocabularies ship in the openai-whisper package:
    pip download --no-deps openai-whisper==20250625 -d downloads
    python tests/reference/gen_tokenizer_golden.py --whisper downloads/openai_whisper-20250625.tar.gz
The script compares those ranks with the vocabularies of the whisper.cpp ggml files in
../shared/data byte for byte (they differ only where the ggml files stored U+FFFD for tokens that
are not valid UTF-8; it records those tokens' true bytes), then writes compact JSON under
tests/data/tokenizer/.
Needs tiktoken==0.12.0 (tests/reference/requirements.txt); OpenAI's whisper/tokenizer.py is
loaded from the package on its own (it needs only tiktoken), so torch is not imported.
"""
import argparse
import base64
import importlib.util
import json
import os
import random
import struct
import sys
import tarfile
import tempfile
import zipfile

import tiktoken

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


# ---------------------------------------------------------------------------------------------
# Inputs: the whisper package (tiktoken ranks, tokenizer.py) and the ggml vocabularies.

def unpack_whisper(path, workdir):
    """Returns the directory holding whisper/tokenizer.py and whisper/assets/."""
    if os.path.isdir(path):
        base = path
    elif path.endswith((".tar.gz", ".tgz")):
        with tarfile.open(path) as tar:
            tar.extractall(workdir, filter="data")
        base = workdir
    elif path.endswith(".whl"):
        with zipfile.ZipFile(path) as z:
            z.extractall(workdir)
        base = workdir
    else:
        sys.exit(f"{path}: expected the openai-whisper sdist (.tar.gz), wheel (.whl) or an unpacked directory")
    for dirpath, _, files in os.walk(base):
        if "tokenizer.py" in files and os.path.isdir(os.path.join(dirpath, "assets")):
            return dirpath
    sys.exit(f"{path}: no whisper/tokenizer.py with assets/ inside")


def load_whisper_tokenizer_module(whisper_dir):
    spec = importlib.util.spec_from_file_location("whisper_tokenizer", os.path.join(whisper_dir, "tokenizer.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_tiktoken_ranks(path):
    ranks = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    by_id = sorted(ranks.items(), key=lambda kv: kv[1])
    assert [r for _, r in by_id] == list(range(len(by_id))), f"{path}: ranks are not 0..n-1"
    return ranks, [t for t, _ in by_id]


def read_ggml_vocabulary(path):
    data = open(path, "rb").read()
    magic, *hparams = struct.unpack_from("<I11i", data, 0)
    assert magic == 0x67676D6C, f"{path}: bad magic"
    pos = 4 + 44
    n_mel, n_fft = struct.unpack_from("<ii", data, pos)
    pos += 8 + 4 * n_mel * n_fft
    (count,) = struct.unpack_from("<i", data, pos)
    pos += 4
    tokens = []
    for _ in range(count):
        (length,) = struct.unpack_from("<I", data, pos)
        pos += 4
        tokens.append(data[pos:pos + length])
        pos += length
    return hparams[0], tokens


# ---------------------------------------------------------------------------------------------
# The corpus: hand-written cases for every class of input, then seeded random mixtures.

ENGLISH = [
    "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.",
    "Hello world", "Hello, world!", "The quick brown fox jumps over the lazy dog.",
    "I'm sure it's fine; we'll see what they've done, and you'd agree they're right.",
    "I'M SURE IT'S FINE; WE'LL SEE WHAT THEY'VE DONE, AND YOU'D AGREE THEY'RE RIGHT.",
    "Don't, won't, can't, shouldn't, wouldn't, ain't, y'all, o'clock, rock'n'roll.",
    "DON'T WON'T CAN'T Y'ALL O'CLOCK", "'s 't 're 've 'm 'll 'd", "'S 'T 'RE 'VE 'M 'LL 'D",
    "'sa 'tt 'red 'vex 'ma 'lla 'do 'l 'r 'v 'x", "it''s", "''", "'", "rock ' n ' roll", "the dog's bone's",
    "Mr. Smith went to Washington on Jan. 3rd, 1999 at 10:30 a.m.", "e.g. i.e. etc. U.S.A. Ph.D.",
    "She said, \"No way!\" — and left.", "Wait... what?!?! Really??", "(parenthetical) [bracketed] {braced} <angled>",
    "email@example.com https://example.org/path?query=1&x=2#frag", "C:\\Program Files\\Hearsay\\hearsay.exe",
    "The price is $1,234.56 (or €1.234,56), up 12.5% from last year.", "Call 555-0123 or +1 (800) 555-0199.",
    "3.14159265358979323846264338327950288419716939937510", "1234567890", "0", "00", "007", "1st 2nd 3rd 4th",
    "2024-01-15T10:30:00Z", "v1.2.3-rc.4+build.5", "x = y + 2 * (z - 1) / 3;", "if (a && b || !c) { return -1; }",
    "#hashtag @mention $var %percent ^caret &amp *star", "~tilde `backtick` |pipe| \\backslash/",
    "[MUSIC PLAYING]", "(SPEAKING FOREIGN LANGUAGE)", "♪ Never gonna give you up ♪", "♪♪♪", "- Hello. - Hi.",
    "[DAVID] Hey there,", ">> Speaker one: >>> nested", "<|endoftext|>", "<|startoftranscript|><|en|><|0.00|>",
    "ALL CAPS SENTENCE WITH NUMBERS 123 AND SYMBOLS !@#", "camelCaseIdentifier snake_case_identifier kebab-case",
    "supercalifragilisticexpialidocious antidisestablishmentarianism", "a", "I", "A.", " ", "",
]

OTHER_SCRIPTS = [
    "我们今天去公园散步，天气非常好。", "你好，世界！", "日本語のテキストです。ひらがな、カタカナ、漢字。", "東京は日本の首都です",
    "안녕하세요, 세계! 오늘 날씨가 좋네요.", "한국어 텍스트 123 테스트", "مرحبا بالعالم! كيف حالك اليوم؟", "السلام عليكم ورحمة الله",
    "١٢٣٤٥٦٧٨٩٠ أرقام عربية", "שלום עולם! מה שלומך?", "नमस्ते दुनिया! आप कैसे हैं?", "हिन्दी में १२३ संख्याएँ",
    "Привет, мир! Как дела?", "Съешь же ещё этих мягких французских булок, да выпей чаю.", "ПРИВЕТ МИР",
    "สวัสดีชาวโลก วันนี้อากาศดี", "ภาษาไทย๑๒๓", "Γειά σου Κόσμε! Καλημέρα.", "Ελληνικά ΚΕΦΑΛΑΙΑ",
    "Tiếng Việt có dấu: Xin chào thế giới", "Ça va? Très bien, merci. Où est la bibliothèque?",
    "Größe, Übung, Maß, Straße, ÄÖÜ äöü ß ẞ", "¿Qué tal? ¡Muy bien! Año, niño, señor.", "Łódź, Kraków, Gdańsk, żółć",
    "Ελλάδα, Türkiye, İstanbul, ıi İI", "Հայերեն", "ქართული ენა", "தமிழ் மொழி", "తెలుగు", "ಕನ್ನಡ", "മലയാളം",
    "বাংলা ভাষা", "ગુજરાતી", "ਪੰਜਾਬੀ", "සිංහල", "ខ្មែរ", "ລາວ", "မြန်မာ", "བོད་ཡིག", "ᠮᠣᠩᠭᠣᠯ", "ትግርኛ አማርኛ", "ᏣᎳᎩ",
    "e\u0301 e\u0300 a\u0308 o\u0302 n\u0303", "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324"
    "\u031e\u0349\u035a\u032f\u031e\u0320\u034dA\u036b\u0357\u0334\u0362\u0335\u031c\u0330\u0354L\u0368\u0367\u0369"
    "\u0358\u0320G\u0311\u0357\u030e\u0305\u035b\u0341\u0334\u033b\u0348\u034d\u0354\u0339O\u0342\u030c\u030c\u0358"
    "\u0328\u0335\u0339\u033b\u031d\u0333", "\u0915\u094d\u0937", "\u1100\u1161\u11a8", "ﬁ ﬂ ﬀ ﬃ", "ＡＢＣ１２３！",
    "ⅠⅡⅢⅣ ⅰⅱⅲ", "½ ¼ ¾ ² ³ ¹ ⁰", "①②③ ⑴⑵", "𝐀𝐁𝐂 𝕏𝕐 𝟘𝟙𝟚", "𓀀𓀁 𐎀𐎁 𒀀", "〇一二三", "\u3007\u3021\u3022",
    "Ꙭ ꙮ", "ǅ ǈ ǋ ǲ", "ʰʲʷ ˈˌ", "ª º", "µ", "°C", "™ © ®", "…", "‰ ‱", "†‡•", "«quoted» „German“ ‚single‘",
]

EMOJI = [
    "😀", "😀😃😄", "I ❤️ NY", "👍🏽", "👍🏻👍🏼👍🏽👍🏾👍🏿", "👨‍👩‍👧‍👦", "👩‍❤️‍💋‍👨", "🏳️‍🌈", "🏴‍☠️", "🇺🇸🇬🇧🇫🇷🇯🇵", "🇺🇸 🇬🇧",
    "#️⃣ 1️⃣ *️⃣", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🧑🏽‍💻", "🙂 smile", "emoji😀inside", "123😀456", "😀!", "☺ ☹ ☃ ★ ☆", "🎵🎶", "🤷‍♂️🤷‍♀️",
]

WHITESPACE = [
    "  leading", "trailing  ", "  both  ", "a  b", "a   b", "a    b", "a\tb", "a\t\tb", "a \tb", "a\t b", "a\nb",
    "a\n\nb", "a\n \nb", "a \n b", "a\r\nb", "a\r\n\r\nb", "line1\nline2\n", "\n", "\n\n", "\r\n", "\t", "   ",
    " \t \n ", "end with newline\n", "\nstart with newline", "a\u00a0b", "a\u00a0\u00a0b", "\u00a0a", "a\u00a0",
    "a\u2000b\u2001c\u2002d\u2003e\u2009f\u200ag", "a\u3000b", "a\u202fb", "a\u205fb", "a\u1680b", "a\u0085b",
    "a\u2028b\u2029c", "a\u000bb\u000cc", "a\u001cb\u001dc\u001ed\u001ff", "a\u200bb", "a\ufeffb", "a\u200db",
    " 123", "  123", " !", "  !", " 'll", "  'll", "\t'll", "x \u00a0y", "x\u00a0 y", " \u00a0 ", "\u00a0 x",
    "tab\tseparated\tvalues\t1\t2", "   spaced   out   words   ", "a " * 20, "\t" * 5 + "x", " " * 40,
]

PUNCTUATION = [
    "!!!", "???", "...", "!?!?", "---", "--", "***", "###", "$$$", "%%%", "&&&", "(((", ")))", "[[", "]]", "{{", "}}",
    "<<", ">>", "<<<", ">>>", "-(", "-[", "('", "(\"", "\"\"\"", "'''", "```", "~~~", "|||", "\\\\", "//", "::", ";;",
    "==", "=>", "->", "<-", "<=>", "!=", "+=", "...!!!???", ".,;:!?", "\"#()*+/:;<=>@[\\]^_`{|}~", "「」『』",
    "——", "–", "・", "、。", "，。！？", "؟ ، ؛", "।", "¡¿", "§¶", "♩♪♫♬♭♮♯", "♪♪", " ♪", "(♪)",
]


def random_strings(rng, count):
    pools = {
        "latin": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "accented": "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿÀÉÎÕÜßœŒłŁđĐ",
        "digits": "0123456789٠١٢٣٤٥٦٧٨٩०१२३४५६७८९",
        "punct": ".,;:!?'\"()[]{}<>-_/\\|@#$%^&*+=~`…—–«»„“”‘’",
        "space": [" ", " ", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2009"],
        "cjk": "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长",
        "kana": "あいうえおかきくけこさしすせそたちつてとなにぬねのアイウエオカキクケコーッ",
        "hangul": "가나다라마바사아자차카타파하한국어안녕하세요감사합니다",
        "arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
        "hebrew": "אבגדהוזחטיכלמנסעפצקרשת",
        "cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЭЮЯ",
        "devanagari": "अआइईउऊएऐओऔकखगघचछजझटठडढणतथदधनपफबभमयरलवशषसह\u093e\u093f\u0940\u0941\u0942\u0947\u0948\u094b\u094c\u094d\u0902",
        "thai": "กขคงจฉชซญดตถทนบปผพฟภมยรลวศสหอฮะาำิีึืุูเแโใไ่้๊๋",
        "combining": "\u0300\u0301\u0302\u0303\u0308\u0327\u0331\u0336\u20dd\u05b0\u064b",
        "emoji": ["😀", "👍", "👍🏽", "❤️", "👨‍👩‍👧", "🇩🇪", "🇯🇵", "🎉", "🔥", "✨", "🤖", "🏳️‍🌈", "🐍"],
        "apostrophe": ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'LL", "'", "’s"],
    }
    names = list(pools)
    out = []
    for _ in range(count):
        parts = []
        chosen = rng.sample(names, rng.randint(1, 4))
        for _ in range(rng.randint(1, 12)):
            pool = pools[rng.choice(chosen)]
            if isinstance(pool, str):
                parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
            else:
                parts.append(rng.choice(pool))
            if rng.random() < 0.6:
                parts.append(rng.choice(pools["space"]) if rng.random() < 0.3 else " ")
        s = "".join(parts)
        if rng.random() < 0.15:
            s = " " + s
        if rng.random() < 0.15:
            s = s + rng.choice([" ", "  ", "\n", "\t"])
        out.append(s)
    return out


def random_code_point_strings(rng, count):
    """Code points from every plane, unassigned ones included (all classes must agree)."""
    out = []
    for _ in range(count):
        chars = []
        for _ in range(rng.randint(1, 10)):
            r = rng.random()
            if r < 0.3:
                cp = rng.randint(0x80, 0x7FF)
            elif r < 0.7:
                cp = rng.randint(0x800, 0xFFFF)
            else:
                cp = rng.randint(0x10000, 0x10FFFF)
            if 0xD800 <= cp <= 0xDFFF:
                cp = 0x20
            chars.append(chr(cp))
            if rng.random() < 0.2:
                chars.append(" ")
        out.append("".join(chars))
    return out


def build_corpus():
    rng = random.Random(20250625)
    corpus = list(ENGLISH) + OTHER_SCRIPTS + EMOJI + WHITESPACE + PUNCTUATION
    # Long inputs: a 30 s transcript's worth of text, and long runs of each character class.
    corpus.append(" ".join(ENGLISH[:6]))
    corpus += ["a" * 300, "ab" * 200, "9" * 250, "!?" * 100, " " * 100 + "x", "é" * 150, "我" * 120, "😀" * 60,
               "\n" * 50, "-" * 200 + "x"]
    corpus += random_strings(rng, 800) + random_code_point_strings(rng, 150)
    seen = set()
    unique = []
    for s in corpus:
        if s not in seen:
            seen.add(s)
            unique.append(s)
    return unique


# ---------------------------------------------------------------------------------------------
# Decode direction: random id sequences, and byte sequences that stress UTF-8 replacement.

UTF8_EDGE_BYTES = [
    b"\xe2\x82\xac", b"\xe2\x82", b"\xe2", b"\xe2\x82A", b"\xf0\x9f\x98\x80", b"\xf0\x9f\x98", b"\xf0\x9f", b"\xf0",
    b"\xed\xa0\x80", b"\xed\x9f\xbf", b"\xe0\x80\x80", b"\xe0\xa0\x80", b"\xf0\x80\x80\x80", b"\xf0\x90\x80\x80",
    b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xc0\xaf", b"\xc1\xbf", b"\xc2\x80", b"\xdf\xbf",
    b"\x80", b"\xbf\x80", b"\xff", b"\xfe\xff", b"\xc3\xc3\xa9", b"a\xc3", b"\xc3(", b"\xe2\x28\xa1", b"\xf8\x88\x80\x80\x80",
    b"\xef\xbf\xbd", b"\xef\xbb\xbf", b"\x00", b"\x7f", b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5",
]


def decode_sequences(rng, ranks, encoding, n_ordinary, count):
    """Random ids (mostly ordinary, some special) and byte-level edge cases, with tiktoken's
    bytes and Python's errors="replace" text."""
    n_vocab = encoding.n_vocab
    byte_token = {b: ranks[bytes([b])] for b in range(256)}
    sequences = [[byte_token[b] for b in case] for case in UTF8_EDGE_BYTES]
    while len(sequences) < count:
        ids = []
        for _ in range(rng.randint(1, 12)):
            r = rng.random()
            if r < 0.08:
                ids.append(rng.randrange(n_ordinary, n_vocab))
            elif r < 0.35:
                ids.append(byte_token[rng.randrange(128, 256)])  # lone high bytes: split characters
            else:
                ids.append(rng.randrange(0, n_ordinary))
        sequences.append(ids)
    out_ids, out_hex, out_text = [], [], []
    for ids in sequences:
        data = encoding.decode_bytes(ids)
        out_ids.append(ids)
        out_hex.append(data.hex())
        out_text.append(data.decode("utf-8", errors="replace"))
        assert encoding.decode(ids) == out_text[-1]
    return {"ids": out_ids, "bytes_hex": out_hex, "text": out_text}


# ---------------------------------------------------------------------------------------------

def fingerprint(tokens):
    """FNV-1a (64-bit) over each token's uint32 length (little-endian) and bytes, in id order."""
    h = 0xCBF29CE484222325
    for t in tokens:
        for b in struct.pack("<I", len(t)) + t:
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def dump(path, obj):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    return os.path.getsize(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--whisper", required=True, help="openai-whisper sdist, wheel or unpacked directory")
    parser.add_argument("--data", default=os.path.join(os.path.dirname(ROOT), "shared", "data"),
                        help="directory with ggml-vocab-tiny.en.bin and ggml-vocab-tiny.bin")
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "tokenizer"))
    args = parser.parse_args()
    assert tiktoken.__version__ == "0.12.0", f"tiktoken {tiktoken.__version__}, expected the pinned 0.12.0"
    os.makedirs(args.out, exist_ok=True)

    with tempfile.TemporaryDirectory() as tmp:
        whisper_dir = unpack_whisper(args.whisper, tmp)
        wt = load_whisper_tokenizer_module(whisper_dir)
        assets = os.path.join(whisper_dir, "assets")
        corpus = build_corpus()
        sizes = {"corpus.json": dump(os.path.join(args.out, "corpus.json"), {"strings": corpus})}
        reference = {"languages": [[code, name] for code, name in wt.LANGUAGES.items()],
                     "language_aliases": {name: code for name, code in wt.TO_LANGUAGE_CODE.items()},
                     "vocabularies": {}}
        repairs = {}

        for name, ggml_name, n_vocab in [("gpt2", "ggml-vocab-tiny.en.bin", 51864),
                                         ("multilingual", "ggml-vocab-tiny.bin", 51865)]:
            ranks, tokens = read_tiktoken_ranks(os.path.join(assets, f"{name}.tiktoken"))
            # The ggml file holds the same vocabulary, except that whisper.cpp's test files were written
            # through a UTF-8 decoder with errors="replace": every token that is not valid UTF-8 on its
            # own (a byte >= 0x80, half a character) is stored as U+FFFD. Check exactly that, and keep
            # the true bytes of those tokens so the C++ test can rebuild the exact vocabulary.
            ggml_n_vocab, ggml_tokens = read_ggml_vocabulary(os.path.join(args.data, ggml_name))
            assert ggml_n_vocab == n_vocab, (ggml_name, ggml_n_vocab)
            extra = ggml_tokens[len(tokens):]
            assert extra in ([], [b"<|endoftext|>"]), (ggml_name, extra[:3])
            lossy = [t.decode("utf-8", errors="replace").encode("utf-8") for t in tokens]
            assert ggml_tokens[:len(tokens)] == lossy, f"{ggml_name} differs from {name}.tiktoken"
            lost = {i: t for i, t in enumerate(tokens) if ggml_tokens[i] != t}
            identical = len(tokens) - len(lost)
            print(f"{name}: {ggml_name} equals {name}.tiktoken byte for byte in {identical} of {len(tokens)} tokens;"
                  f" the other {len(lost)} are the U+FFFD replacement of tokens that are not valid UTF-8"
                  f" (+ {len(extra)} extra entries: {extra})")
            repairs[name] = {"ggml_file": ggml_name, "ordinary": len(tokens),
                             "fingerprint": fingerprint(tokens),
                             "ids": list(lost), "bytes_hex": [t.hex() for t in lost.values()]}

            plain = tiktoken.Encoding(name, pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})
            encoded = [plain.encode_ordinary(s) for s in corpus]
            for s, ids in zip(corpus, encoded):
                assert plain.decode_bytes(ids) == s.encode("utf-8")
            sizes[f"encode_{name}.json"] = dump(os.path.join(args.out, f"encode_{name}.json"), {"ids": encoded})

            multilingual = name == "multilingual"
            full = wt.get_encoding(name=name, num_languages=99)  # with all special tokens
            assert full.n_vocab == n_vocab, (name, full.n_vocab)
            rng = random.Random(1 if multilingual else 2)
            decoded = decode_sequences(rng, ranks, full, len(tokens), 1000)
            sizes[f"decode_{name}.json"] = dump(os.path.join(args.out, f"decode_{name}.json"), decoded)

            variants = [(n_vocab, 99)] + ([(51866, 100)] if multilingual else [])
            for size, languages in variants:
                enc = wt.get_encoding(name=name, num_languages=languages)
                assert enc.n_vocab == size
                tok = wt.Tokenizer(encoding=enc, num_languages=languages)
                specials = sorted(enc._special_tokens.items(), key=lambda kv: kv[1])
                first = specials[0][1]
                assert [i for _, i in specials] == list(range(first, size))
                reference["vocabularies"][str(size)] = {
                    "ranks": name,
                    "ordinary": len(tokens),
                    "first_special": first,
                    "special_texts": [t for t, _ in specials],
                    "eot": tok.eot, "sot": tok.sot, "translate": tok.translate, "transcribe": tok.transcribe,
                    "startoflm": tok.sot_lm, "startofprev": tok.sot_prev, "nospeech": tok.no_speech,
                    "notimestamps": tok.no_timestamps, "timestamp_begin": tok.timestamp_begin,
                    # all_language_tokens follows the iteration order of a set; sort it by id.
                    "language_tokens": sorted(tok.all_language_tokens),
                    "language_codes": [code for _, code in sorted(zip(tok.all_language_tokens,
                                                                      tok.all_language_codes))],
                    "non_speech_tokens": list(tok.non_speech_tokens),
                }
                print(f"{size}: eot {tok.eot}, {len(tok.all_language_tokens)} languages, "
                      f"{len(tok.non_speech_tokens)} non-speech tokens")
        sizes["ggml_repairs.json"] = dump(os.path.join(args.out, "ggml_repairs.json"), repairs)
        sizes["reference.json"] = dump(os.path.join(args.out, "reference.json"), reference)

    total = sum(sizes.values())
    print(f"{len(corpus)} strings; " + ", ".join(f"{k} {v // 1024} KiB" for k, v in sizes.items()) +
          f"; total {total / 1024:.0f} KiB")
    assert total < 1.5e6, "golden files must stay under 1.5 MB"


if __name__ == "__main__":
    main()
