"""Game models (Game, Seat, the append-only move log) arrive with the service layer."""
