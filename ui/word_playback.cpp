// Word view playback (see word_playback.h).
#include "ui/word_playback.h"

#include "ui/transcript_model.h"
#include "ui/word_timings_view.h"

#include <QTimer>

namespace hearsay::ui {

namespace {
constexpr int kPollMs = 40;  // how often the word being heard is looked up while playing
}

WordPlayback::WordPlayback(TranscriptModel* model, WordTimingsView* view, QObject* parent)
    : QObject(parent), m_model(model), m_view(view), m_timer(new QTimer(this)) {
    m_timer->setInterval(kPollMs);
    connect(m_timer, &QTimer::timeout, this, &WordPlayback::poll);
    connect(view, &WordTimingsView::wordClicked, this, [this](int row, int, double seconds) { playFrom(row, seconds); });
    connect(view, &WordTimingsView::segmentClicked, this, [this](int row, double seconds) { playFrom(row, seconds); });
    connect(view, &WordTimingsView::pauseToggled, this, &WordPlayback::togglePause);
    // A cleared transcript takes its rows' audio with it.
    connect(model, &QAbstractItemModel::modelReset, this, [this] { setAudio(nullptr, 0, 0); });
}

WordPlayback::~WordPlayback() = default;

void WordPlayback::setAudio(std::shared_ptr<const std::vector<float>> samples, int sampleRate, int firstRow) {
    m_player.setAudio(std::move(samples), sampleRate);
    m_firstRow = firstRow;
    poll();
}

void WordPlayback::dictationStarting() {
    stop();
    m_dictationFirstRow = m_model->segmentCount();
}

void WordPlayback::dictationAudio(std::shared_ptr<const std::vector<float>> samples, int sampleRate, bool truncated) {
    setAudio(std::move(samples), sampleRate, m_dictationFirstRow);
    if (truncated)
        emit message(tr("Only the first %1 minutes of this dictation's audio are kept for playback.")
                         .arg(qRound(m_player.durationSeconds() / 60.0)),
                     false);
}

void WordPlayback::setAllowed(bool allowed) {
    m_allowed = allowed;
    if (!allowed) stop();
}

bool WordPlayback::playFrom(int row, double seconds) {
    if (!m_allowed) {
        emit message(tr("Playback waits for the dictation to end (the microphone would hear it)."), false);
        return false;
    }
    if (!m_player.hasAudio() || row < m_firstRow || row >= m_model->segmentCount()) {
        emit message(tr("There is no audio to play for this text: only the audio of the last file or dictation is "
                        "kept for playback."),
                     false);
        return false;
    }
    if (auto played = m_player.play(seconds); !played) {
        emit message(tr("Cannot play the audio: %1").arg(QString::fromStdString(played.message())), true);
        poll();
        return false;
    }
    m_timer->start();
    poll();
    return true;
}

void WordPlayback::togglePause() {
    if (!m_player.hasAudio() || !m_allowed) return;
    if (auto toggled = m_player.toggle(); !toggled)
        emit message(tr("Cannot play the audio: %1").arg(QString::fromStdString(toggled.message())), true);
    if (m_player.state() == AudioPlayer::State::Playing) m_timer->start();
    poll();
}

void WordPlayback::stop() {
    m_player.stop();
    poll();
}

void WordPlayback::poll() {
    const AudioPlayer::State state = m_player.state();
    const bool playing = state == AudioPlayer::State::Playing;
    m_view->setPlaying(m_firstRow, playing || state == AudioPlayer::State::Paused ? m_player.positionSeconds() : -1.0);
    if (!playing) m_timer->stop();
    if (state != m_shownState) {
        m_shownState = state;
        emit stateChanged(state);
    }
}

} // namespace hearsay::ui
