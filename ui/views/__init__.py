"""Widgets of the desktop client: main window, panes, tabs, dialogs and delegates."""
