// The status line, progress and Cancel (see job_status_bar.h).
#include "ui/job_status_bar.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace hearsay::ui {
namespace {

constexpr int kProgressSteps = 1000;

} // namespace

JobStatusBar::JobStatusBar(QWidget* parent) : QStatusBar(parent) {
    m_text = new QLabel(tr("Ready"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, kProgressSteps);
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName("cancelButton");
    m_cancel->hide();
    addWidget(m_text, 1);
    addPermanentWidget(m_progress);
    addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &JobStatusBar::cancelRequested);
}

void JobStatusBar::setText(const QString& text) { m_text->setText(text); }

void JobStatusBar::showJob(Job job) {
    m_cancel->setVisible(job == Job::Transcribing);
    m_cancel->setEnabled(job == Job::Transcribing);
    m_progress->setVisible(job != Job::None);
    if (job == Job::LoadingModel) m_progress->setRange(0, 0);  // busy indicator
}

void JobStatusBar::setProgress(double fraction, const QString& text) {
    if (fraction < 0.0) {
        m_progress->setRange(0, 0);  // busy
    } else {
        m_progress->setRange(0, kProgressSteps);
        m_progress->setValue(int(fraction * kProgressSteps + 0.5));
    }
    m_progress->setFormat(text);
}

void JobStatusBar::cancelling() { m_cancel->setEnabled(false); }

} // namespace hearsay::ui
