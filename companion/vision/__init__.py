"""The camera's eyes: sources, sticker decoding, table layouts, multi-frame tracking."""
