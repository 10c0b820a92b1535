// The playback behind the word view: the audio of the last file (its samples, as the worker
// decoded them) or of the last dictation (what its streaming session heard) on an AudioPlayer
// (core/audio), started where a word or a segment was clicked, paused and resumed by Space, and
// the word being heard shown in the view. Rows before that audio's first row (an earlier file
// or dictation) have no audio here: a click on them says so.
#pragma once

#include "core/audio/audio_player.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QTimer;

namespace hearsay::ui {

class TranscriptModel;
class WordTimingsView;

class WordPlayback : public QObject {
    Q_OBJECT
public:
    WordPlayback(TranscriptModel* model, WordTimingsView* view, QObject* parent = nullptr);
    ~WordPlayback() override;

    // The audio of the rows from `firstRow` on (16 kHz mono); null: none. Stops what plays.
    void setAudio(std::shared_ptr<const std::vector<float>> samples, int sampleRate, int firstRow);
    int firstRow() const { return m_firstRow; }
    // A dictation begins: what plays stops, and its rows start after those now in the model; its
    // audio comes with dictationAudio() when it ends.
    void dictationStarting();
    // Off while dictating: nothing plays (the microphone would hear it), a click says why.
    void setAllowed(bool allowed);
    // `truncated`: the run was longer than what was kept (its start is playable).
    void dictationAudio(std::shared_ptr<const std::vector<float>> samples, int sampleRate, bool truncated);
    bool hasAudio() const { return m_player.hasAudio(); }

    // Plays the audio of `row` from `seconds`; false (and a message) when it cannot.
    bool playFrom(int row, double seconds);
    void togglePause();
    void stop();
    AudioPlayer::State state() const { return m_player.state(); }
    double positionSeconds() const { return m_player.positionSeconds(); }

signals:
    // What the user should know: no audio for that text, no output device.
    void message(const QString& text, bool error);
    void stateChanged(hearsay::AudioPlayer::State state);

private:
    void poll();

    TranscriptModel* m_model;
    WordTimingsView* m_view;
    AudioPlayer m_player;
    int m_firstRow = 0;
    int m_dictationFirstRow = 0;
    bool m_allowed = true;
    QTimer* m_timer;
    AudioPlayer::State m_shownState = AudioPlayer::State::Stopped;
};

} // namespace hearsay::ui
