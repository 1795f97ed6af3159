"""The write paths of games, one module per concern (HackSoft's services, Zulip's actions):

    tables         create, join, leave, cancel, and the start of a game
    moves          a player's action against the version they saw
    clocks         turn time limits and the table's wall-clock deadlines
    chat           a table's messages and their moderation
    entries        the one append they all call: the answer, the ratings, the notices
    notifications  what a player is told outside the game page: "your turn" by e-mail, and
                   whether a device's push is still due
    bots           computer opponents' seats and turns; ratings: the ratings projection
    notes          a player's private notes on their own seat (outside the log)

Each reads games through `games.repository` and appends through `entries.entry_append`; side
effects (push, e-mail) run only once the transaction commits. Tasks call services; services
never import tasks (tests/test_architecture.py).
"""
