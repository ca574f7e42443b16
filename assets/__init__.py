"""PipeLab's data files: the shipped scenarios (presets/*.toml), the icons (icons/*.svg) and
the app's style sheet (style.qss). No code: installed as the package ``pipelab_assets``
(pyproject's package-dir), found only through `engine.base.resources.asset`."""
