"""The café: kiosks publish their game logs to the café's Mosquitto broker; ``companion cafe serve``
shows the staff every table on one live page. Topics and message shapes: docs/cafe.md."""
