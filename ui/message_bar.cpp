// Colours and layout of the message strip (see message_bar.h).
#include "ui/message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QToolButton>

namespace hearsay::ui {

MessageBar::MessageBar(QWidget* parent) : QFrame(parent) {
    setObjectName("messageBar");
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    m_icon = new QLabel(this);
    m_text = new QLabel(this);
    m_text->setObjectName("messageText");
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_action = new QPushButton(this);
    m_action->setObjectName("messageAction");
    m_action->hide();
    connect(m_action, &QPushButton::clicked, this, [this] {
        auto action = std::move(m_onAction);  // the action may show a new message
        m_onAction = nullptr;
        hide();
        if (action) action();
    });
    m_close = new QToolButton(this);
    m_close->setAutoRaise(true);
    m_close->setText(QStringLiteral("✕"));
    m_close->setToolTip(tr("Close"));
    layout->addWidget(m_icon);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_action, 0, Qt::AlignVCenter);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
}

void MessageBar::showMessage(Kind kind, const QString& text) { showMessage(kind, text, {}, nullptr); }

void MessageBar::showMessage(Kind kind, const QString& text, const QString& actionText, std::function<void()> action) {
    m_onAction = std::move(action);
    m_action->setText(actionText);
    m_action->setVisible(m_onAction && !actionText.isEmpty());
    m_kind = kind;
    m_text->setText(text);
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    QString colours = "background: #e8f0fb; border: 1px solid #9bb7e0;";
    if (kind == Kind::Warning) {
        icon = QStyle::SP_MessageBoxWarning;
        colours = "background: #fff4d6; border: 1px solid #e0c062;";
    } else if (kind == Kind::Error) {
        icon = QStyle::SP_MessageBoxCritical;
        colours = "background: #fbe3e0; border: 1px solid #d98a80;";
    }
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(size, size));
    setStyleSheet(QString("#messageBar { %1 border-radius: 3px; } #messageBar QLabel { color: #202020; }").arg(colours));
    show();
}

QString MessageBar::text() const { return m_text->text(); }

} // namespace hearsay::ui
