"""PipeLab's data files: the shipped scenarios (presets/*.toml, shapes/*.toml) and the icons
(icons/*.svg). No code: installed as the package ``pipelab_assets``
(pyproject's package-dir), found only through `engine.base.resources.asset`."""
