"""Figures of Schedules: one layout (`layout.build_figure`) drawn by two back ends
(`painter` for images and PDF, `svg` for SVG), plus the bar/density planning and row modes
the app's Gantt shares with them."""
