"""Pure static validators over a compiled fabric; each returns structured findings. Never imports Django."""
