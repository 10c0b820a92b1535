// One window's decoding loop over an InferenceSession (whisper/decoding.py DecodingTask).
#include "core/decoding/decoding_task.h"
#include "core/util/strings.h"

#include "core/decoding/beam_search_decoder.h"
#include "core/decoding/ctranslate2_beam_search.h"
#include "core/decoding/compression_ratio.h"
#include "core/decoding/greedy_decoder.h"
#include "core/decoding/initial_tokens.h"
#include "core/decoding/log_softmax.h"
#include "core/decoding/logit_filters.h"
#include "core/decoding/sequence_ranker.h"
#include "core/nn/inference_session.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace hearsay {
namespace {

constexpr double kChunkSeconds = 30.0;

double probabilityOf(std::span<const float> logits, int token) {
    std::vector<float> logprobs(logits.size());
    logSoftmax(logits, logprobs);
    return double(std::exp(logprobs[size_t(token)]));
}

} // namespace

Result<DecodingResult> decodeWindow(InferenceSession& session, const Tokenizer& tokenizer,
                                    const DecodingOptions& options) {
    if (auto valid = validateDecodingOptions(options); !valid) return valid.error();
    const WhisperConfig& config = session.model().config();
    const SpecialTokens& special = tokenizer.special();
    const int nVocab = config.nVocab;
    const int nCtx = config.nTextCtx;
    if (tokenizer.vocabularySize() != nVocab)
        return makeError("the tokenizer's vocabulary (" + std::to_string(tokenizer.vocabularySize()) +
                         " tokens) does not match the model's (" + std::to_string(nVocab) + ")");
    const int sampleLen = options.sampleLen > 0 ? options.sampleLen : nCtx / 2;
    const int nGroup = std::max({options.beamSize, options.bestOf, 1});

    DecodingResult result;
    result.temperature = options.temperature;
    session.resetDecoder();

    // Language: given, detected, or none (English-only models).
    std::vector<float> sotLogits;  // logits after [<|startoftranscript|>] alone, when computed
    int languageToken = -1;
    if (!tokenizer.isMultilingual()) {
        result.language = "en";
    } else if (options.language.empty()) {
        auto detection = detectLanguage(session, tokenizer, &sotLogits, options.detectAmong);
        if (!detection) return detection.error();
        result.language = detection->code;
        languageToken = detection->token;
        result.languageProbabilities = std::move(detection->probabilities);
    } else {
        languageToken = tokenizer.languageToken(options.language);
        if (languageToken < 0) return makeError("unknown language '" + options.language + "' for this model");
        result.language = std::string(tokenizer.languageCode(languageToken));
    }

    const InitialTokens initial =
        buildInitialTokens(special, tokenizer.isMultilingual(), languageToken, options.task, options.withoutTimestamps,
                           options.prompt, options.prefix, nCtx, sampleLen);
    if (int(initial.tokens.size()) >= nCtx)
        return makeError("the prompt and start sequence (" + std::to_string(initial.tokens.size()) +
                         " tokens) leave no room in the decoder context of " + std::to_string(nCtx));

    // Where the filters' sampled history begins: after the prefix (the reference), or at its start.
    const int historyBegin = options.prefixIsSampled ? initial.prefixBegin : initial.sampleBegin;

    // Logit filters, in the reference's order.
    std::vector<std::unique_ptr<LogitFilter>> filters;
    if (options.suppressBlank)
        filters.push_back(std::make_unique<SuppressBlank>(tokenizer.encode(" "), special.eot, historyBegin));
    if (!options.suppressTokens.empty())
        filters.push_back(std::make_unique<SuppressTokens>(
            resolveSuppressTokens(options.suppressTokens, tokenizer.nonSpeechTokens(), special, nVocab)));
    if (!options.withoutTimestamps) {
        std::optional<int> maxInitialIndex;
        if (options.maxInitialTimestamp && *options.maxInitialTimestamp != 0.0f) {
            const double precision = kChunkSeconds / double(config.nAudioCtx);
            maxInitialIndex = int(std::nearbyint(double(*options.maxInitialTimestamp) / precision));
        }
        filters.push_back(std::make_unique<ApplyTimestampRules>(special, historyBegin, maxInitialIndex));
    }

    std::unique_ptr<TokenDecoder> decoder;
    if (options.beamSize > 0 && options.beamRules == BeamSearchRules::CTranslate2)
        decoder = std::make_unique<CTranslate2BeamSearchDecoder>(options.beamSize, special.eot, options.patience);
    else if (options.beamSize > 0)
        decoder = std::make_unique<BeamSearchDecoder>(options.beamSize, special.eot, options.patience);
    else
        decoder = std::make_unique<GreedyDecoder>(options.temperature, special.eot, options.seed);
    decoder->reset();

    // No-speech probability at the <|startoftranscript|> position (softmax of the raw logits).
    std::vector<float> logits;
    const std::vector<int> throughSot(initial.tokens.begin(), initial.tokens.begin() + initial.sotIndex + 1);
    const bool sotIsLast = initial.sotIndex + 1 == initial.sampleBegin;
    if (!sotIsLast) {
        if (sotLogits.empty() || initial.sotIndex != 0) {
            if (auto r = session.decode({throughSot}, logits); !r) return r.error();
            sotLogits.assign(logits.begin(), logits.begin() + nVocab);
        }
        result.noSpeechProb = probabilityOf(sotLogits, special.noSpeech);
    }

    // The sampling loop. The first step runs one row and copies its cache to every row of the group.
    std::vector<std::vector<int>> tokens(size_t(nGroup), initial.tokens);
    std::vector<float> sumLogprobs(size_t(nGroup), 0.0f);
    bool completed = false;
    for (int i = 0; i < sampleLen; ++i) {
        if (i == 0) {
            if (auto r = session.decode({initial.tokens}, logits); !r) return r.error();
            logits.resize(size_t(nVocab));
            if (sotIsLast) result.noSpeechProb = probabilityOf(logits, special.noSpeech);
            if (nGroup > 1) {
                session.reorderBeams(std::vector<int>(size_t(nGroup), 0));
                logits.resize(size_t(nGroup) * size_t(nVocab));
                for (int k = 1; k < nGroup; ++k)
                    std::copy_n(logits.begin(), nVocab, logits.begin() + std::ptrdiff_t(k) * nVocab);
            }
        } else {
            if (auto r = session.decode(tokens, logits); !r) return r.error();
        }
        for (size_t k = 0; k < tokens.size(); ++k) {
            std::span<float> row(logits.data() + k * size_t(nVocab), size_t(nVocab));
            for (const auto& filter : filters) filter->apply(row, tokens[k]);
        }
        DecoderStep step = decoder->update(tokens, logits, nVocab, sumLogprobs);
        ++result.steps;
        if (!step.sourceBeams.empty()) session.reorderBeams(step.sourceBeams);
        completed = step.completed;
        if (completed || int(tokens[0].size()) > nCtx) break;
    }
    result.endedByLimit = !completed;

    // Rank the candidates on their sampled tokens (between the start sequence and the first EOT).
    std::vector<DecodedCandidate> candidates = decoder->finalize(tokens, sumLogprobs);
    std::vector<std::vector<int>> sampled;
    std::vector<int> lengths;
    std::vector<double> sums;
    for (const auto& c : candidates) {
        auto begin = c.tokens.begin() + std::min<std::ptrdiff_t>(initial.sampleBegin, std::ptrdiff_t(c.tokens.size()));
        auto end = std::find(begin, c.tokens.end(), special.eot);
        sampled.emplace_back(begin, end);
        lengths.push_back(int(sampled.back().size()));
        sums.push_back(c.sumLogprob);
    }
    if (sampled.empty()) return makeError("decoding produced no candidate sequence");
    const int selected = rankByLikelihood(lengths, sums, options.lengthPenalty);

    result.tokens = std::move(sampled[size_t(selected)]);
    result.sumLogprob = sums[size_t(selected)];
    result.avgLogprob = result.sumLogprob / double(result.tokens.size() + 1);
    std::vector<int> textTokens;
    for (int t : result.tokens)
        if (t < special.timestampBegin) textTokens.push_back(t);
    result.text = stripWhitespace(tokenizer.decode(textTokens));
    result.compressionRatio = compressionRatio(result.text);
    return result;
}

} // namespace hearsay
