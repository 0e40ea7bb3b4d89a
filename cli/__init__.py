"""The docintel command line: flags -> Settings -> one docintel.api call -> rich / JSON output."""
