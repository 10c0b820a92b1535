// Text and buttons of the recovery offer (see recovery_bar.h).
#include "ui/recovery_bar.h"

#include <QDateTime>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QStyle>

#include <chrono>

namespace hearsay::ui {
namespace {

constexpr int kPreviewCharacters = 160;

QDateTime localTime(std::chrono::system_clock::time_point t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    return QDateTime::fromMSecsSinceEpoch(qint64(ms)).toLocalTime();
}

} // namespace

RecoveryBar::RecoveryBar(QWidget* parent) : QFrame(parent) {
    setObjectName("recoveryBar");
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet("#recoveryBar { background: #fff4d6; border: 1px solid #e0c062; border-radius: 3px; } "
                  "#recoveryBar QLabel { color: #202020; }");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    auto* icon = new QLabel(this);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(size, size));
    m_text = new QLabel(this);
    m_text->setObjectName("recoveryText");
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_restore = new QPushButton(tr("Restore"), this);
    m_restore->setObjectName("recoveryRestore");
    m_restore->setToolTip(tr("Add the text to the transcript and remove it from the journal directory"));
    m_discard = new QPushButton(tr("Discard"), this);
    m_discard->setObjectName("recoveryDiscard");
    m_discard->setToolTip(tr("Delete the text for good"));
    m_later = new QPushButton(tr("Later"), this);
    m_later->setObjectName("recoveryLater");
    m_later->setToolTip(tr("Hide this offer; the text stays on disk (File › Recover last dictation… shows it again)"));
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_restore, 0, Qt::AlignVCenter);
    layout->addWidget(m_discard, 0, Qt::AlignVCenter);
    layout->addWidget(m_later, 0, Qt::AlignVCenter);
    connect(m_restore, &QPushButton::clicked, this, &RecoveryBar::restoreRequested);
    connect(m_discard, &QPushButton::clicked, this, &RecoveryBar::discardRequested);
    connect(m_later, &QPushButton::clicked, this, &QWidget::hide);
    hide();
}

QString RecoveryBar::period(const LeftoverJournal& journal) {
    const QDateTime from = localTime(journal.started), to = localTime(journal.modified);
    const QString day = QLocale().toString(from.date(), QLocale::ShortFormat);
    const QString start = QLocale().toString(from.time(), QLocale::ShortFormat);
    if (to.date() != from.date())
        return QStringLiteral("%1 %2 – %3").arg(day, start, QLocale().toString(to, QLocale::ShortFormat));
    const QString end = QLocale().toString(to.time(), QLocale::ShortFormat);
    return end == start ? QStringLiteral("%1 %2").arg(day, start) : QStringLiteral("%1 %2–%3").arg(day, start, end);
}

void RecoveryBar::setJournals(const std::vector<LeftoverJournal>& journals) {
    int words = 0, readable = 0, unreadable = 0;
    QStringList periods;
    QString preview;
    QString folder;
    for (const LeftoverJournal& j : journals) {
        folder = QDir::toNativeSeparators(QString::fromStdString(j.path.parent_path().string()));
        if (!j.error.empty()) {
            ++unreadable;
            continue;
        }
        ++readable;
        words += j.words();
        periods << period(j);
        if (preview.size() < kPreviewCharacters) preview += ' ' + QString::fromStdString(j.text()).simplified();
    }
    if (readable == 0 && unreadable == 0) {
        m_text->clear();
        hide();
        return;
    }
    preview = preview.trimmed();
    if (preview.size() > kPreviewCharacters) preview = preview.left(kPreviewCharacters - 1) + QStringLiteral("…");
    QString text;
    if (readable > 0) {
        const QString count = words == 1 ? tr("1 word") : tr("%1 words").arg(words);
        text = readable == 1 ? tr("Hearsay did not close normally. %1 dictated %2 are kept:").arg(count, periods.first())
                             : tr("Hearsay did not close normally %1 times. %2 dictated %3 are kept:")
                                   .arg(QString::number(readable), count, periods.join(tr(", then ")));
        text += QStringLiteral(" “%1”").arg(preview);
    }
    if (unreadable > 0)
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) +
                tr("%1 journal file(s) in %2 could not be read; they are left there untouched.")
                    .arg(QString::number(unreadable), folder);
    m_text->setText(text);
    m_restore->setVisible(readable > 0);
    m_discard->setVisible(readable > 0);
    show();
}

QString RecoveryBar::text() const { return m_text->text(); }

} // namespace hearsay::ui
