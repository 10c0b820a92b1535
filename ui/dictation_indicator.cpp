// The on-screen dictation indicator (see dictation_indicator.h).
#include "ui/dictation_indicator.h"

#include "ui/level_meter_bar.h"

#include <QClipboard>
#include <QCursor>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScreen>
#include <QToolButton>

#include <algorithm>

namespace hearsay::ui {
namespace {

constexpr int kWidth = 560;
constexpr int kBottomMargin = 48;  // above a bottom panel or dock

QColor stateColour(DictationIndicator::State state) {
    switch (state) {
    case DictationIndicator::State::Listening: return QColor(0xd9, 0x30, 0x25);
    case DictationIndicator::State::Finishing: return QColor(0xc8, 0x86, 0x10);
    case DictationIndicator::State::Done: return QColor(0x3c, 0xaa, 0x46);
    case DictationIndicator::State::Failed: break;
    }
    return QColor(0xc8, 0x86, 0x10);
}

} // namespace

DictationIndicator::DictationIndicator(QWidget* parent)
    : QWidget(parent, Qt::Tool | Qt::FramelessWindowHint | Qt::WindowStaysOnTopHint | Qt::WindowDoesNotAcceptFocus) {
    setObjectName("dictationIndicator");
    setWindowTitle(tr("Hearsay dictation"));
    setAttribute(Qt::WA_ShowWithoutActivating);
    setFocusPolicy(Qt::NoFocus);
    setCursor(Qt::SizeAllCursor);  // it can be dragged anywhere on its background
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(12, 8, 8, 8);
    row->setSpacing(10);
    m_stateLabel = new QLabel(this);
    m_stateLabel->setObjectName("indicatorState");
    row->addWidget(m_stateLabel);
    m_level = new LevelMeterBar(this);
    m_level->setObjectName("indicatorLevel");
    m_level->setFixedWidth(80);
    row->addWidget(m_level);
    m_tentative = new QLabel(this);
    m_tentative->setObjectName("indicatorTentative");
    m_tentative->setMinimumWidth(120);
    m_tentative->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QPalette dim = m_tentative->palette();
    dim.setColor(QPalette::WindowText, dim.color(QPalette::PlaceholderText));
    m_tentative->setPalette(dim);
    row->addWidget(m_tentative, 1);
    m_copy = new QToolButton(this);
    m_copy->setObjectName("indicatorCopy");
    m_copy->setText(tr("Copy"));
    m_copy->setToolTip(tr("Copy the text of the last dictation to the clipboard"));
    m_copy->setFocusPolicy(Qt::NoFocus);
    m_copy->setCursor(Qt::ArrowCursor);
    connect(m_copy, &QToolButton::clicked, this, &DictationIndicator::copyRunText);
    row->addWidget(m_copy);
    m_close = new QToolButton(this);
    m_close->setObjectName("indicatorClose");
    m_close->setText(QStringLiteral("×"));
    m_close->setToolTip(tr("Hide until the next dictation"));
    m_close->setAutoRaise(true);
    m_close->setFocusPolicy(Qt::NoFocus);
    m_close->setCursor(Qt::ArrowCursor);
    connect(m_close, &QToolButton::clicked, this, [this] {
        hide();
        emit dismissed();
    });
    row->addWidget(m_close);
    setFixedWidth(kWidth);
    setRunText(QString());
    setState(State::Listening);
}

QString DictationIndicator::stateText() const {
    switch (m_state) {
    case State::Listening: return tr("Listening");
    case State::Finishing: return tr("Finishing…");
    case State::Done: return tr("Done");
    case State::Failed: break;
    }
    return tr("Not typed");
}

void DictationIndicator::setState(State state, const QString& detail) {
    m_state = state;
    m_stateLabel->setText(QString("<span style=\"color:%1\">●</span> %2")
                              .arg(stateColour(state).name(), stateText().toHtmlEscaped()));
    m_stateLabel->setToolTip(detail);
    // When typing stopped, the reason stands where the words were: Copy is the way out.
    if (state == State::Failed) m_tentative->setText(detail.isEmpty() ? tr("Copy the text instead") : detail);
    else setTentative(m_fullTentative);
    update();
}

void DictationIndicator::setLevel(const InputLevel& level) { m_level->setLevel(level); }

void DictationIndicator::setTentative(const QString& text) {
    m_fullTentative = text.trimmed();
    if (m_state == State::Failed) return;
    // The newest words matter: a long text loses its beginning.
    const int room = std::max(m_tentative->width(), 120);
    m_tentative->setText(m_tentative->fontMetrics().elidedText(m_fullTentative, Qt::ElideLeft, room));
    m_tentative->setToolTip(m_fullTentative);
}

QString DictationIndicator::tentativeText() const { return m_fullTentative; }

void DictationIndicator::setRunText(const QString& text) {
    m_runText = text;
    m_copy->setEnabled(!text.isEmpty());
}

void DictationIndicator::copyRunText() {
    if (!m_runText.isEmpty()) QGuiApplication::clipboard()->setText(m_runText);
}

QPoint DictationIndicator::defaultPosition() const {
    QScreen* screen = QGuiApplication::screenAt(QCursor::pos());
    if (!screen) screen = QGuiApplication::primaryScreen();
    if (!screen) return {};
    const QRect area = screen->availableGeometry();
    const QSize size = sizeHint().expandedTo(minimumSize()).boundedTo(maximumSize());
    return {area.center().x() - size.width() / 2, area.bottom() - kBottomMargin - size.height()};
}

bool DictationIndicator::showsWithoutFocus(const QString& platformName, QString* why) {
    const bool wayland = platformName.startsWith("wayland");
    if (why)
        *why = wayland ? tr("on Wayland a new window takes the keyboard focus from the application being typed into; "
                            "the tray icon shows the state")
                       : QString();
    return !wayland;
}

void DictationIndicator::present() {
    adjustSize();
    QPoint where = defaultPosition();
    // A remembered place counts while a screen still shows it (a monitor may have gone).
    if (m_position && QGuiApplication::screenAt(*m_position + QPoint(width() / 2, height() / 2))) where = *m_position;
    move(where);
    if (!isVisible()) show();
    raise();
}

void DictationIndicator::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF r = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    p.fillRect(rect(), palette().window());
    p.setPen(QPen(palette().mid().color(), 1));
    p.drawRect(r);
    // The state's colour along the left edge.
    p.fillRect(QRectF(r.left(), r.top(), 4, r.height()), stateColour(m_state));
}

void DictationIndicator::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    m_dragOffset = event->globalPosition().toPoint() - pos();
    m_dragged = false;
}

void DictationIndicator::mouseMoveEvent(QMouseEvent* event) {
    if (!m_dragOffset) return;
    move(event->globalPosition().toPoint() - *m_dragOffset);
    m_dragged = true;
}

void DictationIndicator::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_dragOffset) return;
    m_dragOffset.reset();
    if (!m_dragged) return;
    m_position = pos();
    emit moved(pos());
}

} // namespace hearsay::ui
