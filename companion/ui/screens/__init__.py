"""The kiosk's screens. Each draws state and sends commands; none decides a rule."""
