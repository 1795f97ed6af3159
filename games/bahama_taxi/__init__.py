"""Bahama Taxi, the platform's first game: its registration (`kind.KIND`). Its pure engine is
`games/engine` (older than the registry: it kept its place)."""
