// hearsay-cli journal: what a dictation that did not end normally (the GUI or `stream` killed or
// crashed) left in the journal directory — listed, printed and removed, or removed. The store
// (core/transcript/journal_store.h) does the work; only option parsing and printing live here.
#include "app/cli/command.h"
#include "core/transcript/journal_store.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

namespace hearsay::cli {
namespace {

void declareJournal(CLI::App& c) {
    c.footer("Dictated text that a run which did not end normally (a crash, a kill) left on disk. Both the\n"
             "GUI and `hearsay-cli stream` journal every committed piece of text as it is committed, each run\n"
             "in a file of its own; a run that ends normally removes its file.\n"
             "  show      list the journals, oldest first: number, when, how many words, the file, then the text\n"
             "  restore   print the text (oldest first, one line per journal) and then remove the journals;\n"
             "            --output FILE writes it there instead\n"
             "  discard   remove the journals without printing them\n"
             "  N...      only these journals (the numbers that show prints); default: all");
    addPositional(c, "ACTION", "show, restore or discard");
    addPositional(c, "N", "only these journals (the numbers that show prints); default: all", true);
    addText(c, "--dir", "DIR", "the journal directory (default $XDG_STATE_HOME/hearsay, or ~/.local/state/hearsay)");
    addText(c, "--output", "FILE", "with restore: write the text to FILE (replaced) instead of stdout");
}

std::string localTime(std::chrono::system_clock::time_point t) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    ::localtime_r(&seconds, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
    return text;
}

int runJournal(const Options& options) {
    auto fail = [](const std::string& message, int code) {
        std::fprintf(stderr, "hearsay-cli journal: %s\n", message.c_str());
        return code;
    };
    if (options.positional().empty()) return fail("give show, restore or discard (see --help)", 2);
    const std::string action = options.positional()[0];
    if (action != "show" && action != "restore" && action != "discard")
        return fail("unknown action '" + action + "': give show, restore or discard (see --help)", 2);
    if (options.value("output") && action != "restore") return fail("--output goes with restore only", 2);

    const JournalStore store = options.value("dir") ? JournalStore(*options.value("dir")) : JournalStore();
    auto found = store.leftovers();
    if (!found) return fail(found.message(), 1);
    const std::vector<LeftoverJournal>& all = found.value();

    // The journals chosen by number (1-based, as show numbers them), or all of them.
    std::vector<size_t> picks;
    for (size_t i = 1; i < options.positional().size(); ++i) {
        const std::string& n = options.positional()[i];
        char* end = nullptr;
        const long index = std::strtol(n.c_str(), &end, 10);
        if (n.empty() || *end != '\0' || index < 1 || size_t(index) > all.size())
            return fail("no journal number '" + n + "' (there are " + std::to_string(all.size()) +
                            "; see hearsay-cli journal show)",
                        2);
        picks.push_back(size_t(index - 1));
    }
    if (options.positional().size() == 1)
        for (size_t i = 0; i < all.size(); ++i) picks.push_back(i);

    if (action == "show") {
        if (all.empty()) std::printf("no dictated text is waiting to be recovered in %s\n", store.directory().c_str());
        for (size_t i : picks) {
            const LeftoverJournal& j = all[i];
            if (!j.error.empty()) {
                std::printf("%zu\t%s\tunreadable: %s\n\n", i + 1, j.path.c_str(), j.error.c_str());
                continue;
            }
            std::printf("%zu\t%s to %s\t%d %s\t%s\n%s\n\n", i + 1, localTime(j.started).c_str(),
                        localTime(j.modified).c_str(), j.words(), j.words() == 1 ? "word" : "words", j.path.c_str(),
                        j.text().c_str());
        }
        return 0;
    }

    std::vector<LeftoverJournal> readable;
    for (size_t i : picks) {
        const LeftoverJournal& j = all[i];
        if (j.error.empty()) readable.push_back(j);
        else std::fprintf(stderr, "hearsay-cli journal: %s is left alone: %s\n", j.path.c_str(), j.error.c_str());
    }
    if (action == "restore") {
        std::string text;
        for (const LeftoverJournal& j : readable) text += j.text() + "\n";
        if (const auto output = options.value("output")) {
            std::ofstream out(*output, std::ios::binary | std::ios::trunc);
            out << text;
            out.close();
            if (!out) return fail("cannot write " + *output + "; the journals are kept", 1);
        } else {
            std::fwrite(text.data(), 1, text.size(), stdout);
            if (std::fflush(stdout) != 0 || std::ferror(stdout)) return fail("cannot write the text; the journals are kept", 1);
        }
    }
    // Only now (the text is out, or the user asked to throw it away) are the files removed.
    if (auto removed = store.remove(readable); !removed) return fail(removed.message(), 1);
    if (action == "discard")
        std::fprintf(stderr, "hearsay-cli journal: %zu journal(s) discarded\n", readable.size());
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(journal, "journal", "show, restore or discard dictated text a crashed run left", declareJournal,
                    runJournal);

} // namespace hearsay::cli
