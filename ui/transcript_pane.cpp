// The main window's centre (see transcript_pane.h).
#include "ui/transcript_pane.h"

#include "ui/level_meter_bar.h"
#include "ui/message_bar.h"
#include "ui/recovery_bar.h"
#include "ui/transcript_model.h"
#include "ui/word_timings_view.h"

#include "core/transcript/transcript_export.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace hearsay::ui {

TranscriptPane::TranscriptPane(TranscriptModel* transcript, QWidget* parent) : QWidget(parent), m_transcript(transcript) {
    m_view = new QTableView(this);
    m_view->setObjectName("transcriptView");
    m_view->setModel(transcript);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setWordWrap(true);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TranscriptModel::StartColumn, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TranscriptModel::EndColumn, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    // View › Word timings: the same rows as running words.
    m_words = new WordTimingsView(transcript, this);

    m_hint = new QLabel(this);
    m_hint->setObjectName("centreHint");
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    m_hint->setEnabled(false);

    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_hint);
    m_pages->addWidget(m_view);
    m_pages->addWidget(m_words);
    m_messageBar = new MessageBar(this);
    m_recoveryBar = new RecoveryBar(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->addWidget(m_recoveryBar);
    layout->addWidget(m_messageBar);
    // The dictation strip: the big Record/Stop button and the input level.
    auto* strip = new QHBoxLayout;
    m_recordButton = new QPushButton(this);
    m_recordButton->setObjectName("recordButton");
    m_recordButton->setMinimumHeight(40);
    m_recordButton->setMinimumWidth(150);
    QFont big = m_recordButton->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_recordButton->setFont(big);
    connect(m_recordButton, &QPushButton::clicked, this, &TranscriptPane::recordClicked);
    m_levelMeter = new LevelMeterBar(this);
    strip->addWidget(m_recordButton);
    strip->addWidget(new QLabel(tr("Input"), this));
    strip->addWidget(m_levelMeter, 1);
    layout->addLayout(strip);
    layout->addWidget(m_pages, 1);
}

void TranscriptPane::showTranscript(bool asWords) { m_pages->setCurrentIndex(asWords ? 2 : 1); }

void TranscriptPane::showHint(const QString& html) {
    m_hint->setText(html);
    m_pages->setCurrentIndex(0);
}

void TranscriptPane::setRecordButton(const QString& label, bool enabled, const QString& why) {
    m_recordButton->setText(label);
    m_recordButton->setEnabled(enabled);
    m_recordButton->setToolTip(why);
}

void TranscriptPane::keepingScroll(const std::function<void()>& change) {
    QScrollBar* bar = m_view->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum();
    change();
    if (atEnd) m_view->scrollToBottom();
}

void TranscriptPane::copySelection() {
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        copyAll();
        return;
    }
    QApplication::clipboard()->setText(m_transcript->plainText(rows));
}

void TranscriptPane::copyAll() { QApplication::clipboard()->setText(QString::fromStdString(toTxt(m_transcript->transcript()))); }

} // namespace hearsay::ui
