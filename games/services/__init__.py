"""The write paths of games, one module per concern (HackSoft's services, Zulip's actions):

    tables         create, join, leave, cancel, and the start of a game
    moves          a player's action against the version they saw
    clocks         turn time limits and the table's wall-clock deadlines
    chat           a table's messages and their moderation
    notifications  what a player is told outside the game page ("your turn" by e-mail)

Each reads and appends games through `games.repository`; side effects (push, e-mail) run only
once the transaction commits. Tasks call services; services never import tasks.
"""
