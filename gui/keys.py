"""The keyboard: the transport keys for the whole app, and fields that give them back.

The transport keys (Space, ← →, Home, End, + −) are application shortcuts on the open
tab's clock: they work whatever has focus, except where the focused widget needs the key
itself. Qt asks the focused widget first (a ShortcutOverride event); `KeyRouter` answers
for the widgets Qt does not answer for:

- a text field (spin box, line edit, a table cell being edited) keeps every key it types
  or moves its cursor with: Space, the arrows, Home, End, + and − (Qt already does this);
  **Enter** leaves the field (committing it) and **Escape** leaves it putting back the
  value it had, and either returns the focus to the open tab's view, where the transport
  keys work again;
- a table or list keeps the arrows, Home, End and the page keys (moving between cells);
- a combo box keeps ↑ ↓, Home, End, the page keys and Space (choosing, opening);
- a tab bar keeps ← → (switching tabs);
- a button or check box keeps Space (pressing it). Buttons and combo boxes take focus from
  the Tab key only, never from a click: clicking "Pin" leaves the focus where it was, so
  Space right after it plays instead of pinning again.

Escape on any other watched widget returns the focus to the tab's view too.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QTabBar,
    QWidget,
)

from gui.clock import Clock

Key = Qt.Key
#: The transport's keys, each with the `Clock` method it calls.
TRANSPORT_KEYS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Space",), "toggle"),
    (("Right",), "step_forward"),
    (("Left",), "step_back"),
    (("Home",), "to_start"),
    (("End",), "to_end"),
    (("+", "="), "faster"),
    (("-",), "slower"),
)
_ARROWS = {Key.Key_Left, Key.Key_Right, Key.Key_Up, Key.Key_Down}
_PAGES = {Key.Key_Home, Key.Key_End, Key.Key_PageUp, Key.Key_PageDown}
#: Keys a focused widget of each kind keeps (the transport's shortcuts yield to it).
KEPT_KEYS: tuple[tuple[type[QWidget], frozenset[int]], ...] = (
    (QAbstractItemView, frozenset(_ARROWS | _PAGES)),
    (QComboBox, frozenset({Key.Key_Up, Key.Key_Down, Key.Key_Space} | _PAGES)),
    (QTabBar, frozenset({Key.Key_Left, Key.Key_Right})),
    (QAbstractButton, frozenset({Key.Key_Space})),
)
_ENTER = {Key.Key_Return, Key.Key_Enter}
#: Widgets a click should not focus (Tab still does).
TAB_FOCUS_ONLY = (QAbstractButton, QComboBox)


def transport_actions(parent: QWidget, clock: Callable[[], Clock]) -> list[QAction]:
    """One application-wide action per transport key, acting on ``clock()`` (the open
    tab's clock when the key is pressed); added to ``parent``."""
    actions = []
    for keys, method in TRANSPORT_KEYS:
        action = QAction(parent)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        action.triggered.connect(lambda _=False, m=method: getattr(clock(), m)())
        parent.addAction(action)
        actions.append(action)
    return actions


def kept_keys(widget: QWidget) -> frozenset[int]:
    """The keys ``widget`` keeps for itself when focused (beyond what Qt gives it)."""
    for kind, keys in KEPT_KEYS:
        if isinstance(widget, kind):
            return keys
    return frozenset()


def is_field(widget: QObject) -> bool:
    """A text field: something one types into."""
    return isinstance(widget, QAbstractSpinBox | QLineEdit)


class KeyRouter(QObject):
    """Watches the fields, tables, combos and buttons under the roots given to `watch`:
    they keep the keys they need, and Enter / Escape send the focus ``home()`` (the open
    tab's view)."""

    def __init__(self, home: Callable[[], QWidget | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._home = home
        self._entered: dict[int, object] = {}  # id(field) → its value when focused

    def watch(self, root: QWidget) -> None:
        """Route keys for ``root`` and every widget under it (call again for new ones)."""
        for widget in [root, *root.findChildren(QWidget)]:
            if isinstance(widget, TAB_FOCUS_ONLY):
                widget.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            if _watched(widget):
                widget.removeEventFilter(self)  # at most once
                widget.installEventFilter(self)

    def leave(self, widget: QWidget | None = None) -> None:
        """Move the focus to the open tab's view (committing a field being left)."""
        home = self._home()
        if home is not None and home is not widget:
            home.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if not isinstance(watched, QWidget):
            return False
        if kind == QEvent.Type.FocusIn and is_field(watched):
            self._entered[id(watched)] = _value_of(watched)
        elif kind == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if _plain(event) and event.key() in kept_keys(watched):
                event.accept()  # the widget gets it as a key press; the shortcut waits
                return True
        elif kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._on_key(watched, event)
        return False

    def _on_key(self, widget: QWidget, event: QKeyEvent) -> bool:
        key = event.key()
        if key in _ENTER and is_field(widget) and _plain(event):
            self.leave(widget)  # the focus leaving commits the field (editingFinished)
            return True
        if key == Key.Key_Escape and _plain(event):
            if is_field(widget) and id(widget) in self._entered:
                _set_value(widget, self._entered[id(widget)])
            self.leave(widget)
            return True
        return False


def _watched(widget: QWidget) -> bool:
    if isinstance(widget.parent(), QAbstractSpinBox | QComboBox):
        return False  # a spin box's own line edit: its box gets (and forwards) the keys
    return is_field(widget) or any(isinstance(widget, kind) for kind, _ in KEPT_KEYS)


def _plain(event: QKeyEvent) -> bool:
    """No modifier but the keypad's: Ctrl+Home and friends stay shortcuts."""
    modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    return modifiers in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier)


def _value_of(widget: QWidget) -> object:
    if isinstance(widget, QLineEdit):
        return widget.text()
    value = getattr(widget, "value", None)
    return value() if callable(value) else None


def _set_value(widget: QWidget, value: object) -> None:
    if value is None:
        return
    if isinstance(widget, QLineEdit):
        widget.setText(str(value))
    elif hasattr(widget, "setValue"):
        widget.setValue(value)
