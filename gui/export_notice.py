"""The note an export from the app leaves once its file is written: which file, in which
folder, and a button that opens that folder. Non-modal: the window stays usable and the
note closes when done with (a file written without a word left people looking for it)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget


def confirm_written(parent: QWidget, path: str | Path) -> QMessageBox:
    """Show, without blocking, that ``path`` was written, with an "Open folder" button."""
    written = Path(path).resolve()
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("Exported")
    box.setText(f"Wrote {written.name}")
    box.setInformativeText(f"in {written.parent}")
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    opener = box.addButton("Open folder", QMessageBox.ButtonRole.ActionRole)
    opener.clicked.connect(lambda: open_folder(written.parent))
    box.addButton(QMessageBox.StandardButton.Close)
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.show()
    return box


def open_folder(folder: Path) -> bool:
    """Open ``folder`` in the desktop's file manager."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
