"""The reconstructed Shear Panic components shared/rulebooks/README.md fixes and no other test pins:
the starting flock, both dice, the 3-player panic spaces and where Roger and the Shearer
enter and leave (loaded from the shipped standard.toml)."""

from sheepsim.games.panic import layout as L


def test_starting_flock_is_the_readme_square_facing_up(rules):
    # shared/rulebooks/README.md: "Starting flock: a 3x3 square facing "up" (heads toward the top row), black
    # sheep in the centre, each colour on a corner and the edge cell a knight's move
    # from it:  B Y G / R K B / Y G R"
    picture = [[None] * 3 for _ in range(3)]
    rows = sorted({r for r, _, _ in rules.sheep})
    cols = sorted({c for _, c, _ in rules.sheep})
    for r, c, colour in rules.sheep:
        picture[rows.index(r)][cols.index(c)] = L.COLOUR_LETTERS[colour]
    assert ["".join(row) for row in picture] == ["byg", "rkb", "ygr"]
    assert L.FACING_NAMES[rules.start_facing] == "up"


def test_dice_faces(rules):
    # shared/rulebooks/README.md: "Panic die: blue, green, red, yellow, black, white (one face each). Regroup
    # die: 3 faces "+" (orthogonal), 3 faces "X" (diagonal)."
    assert [L.FACE_NAMES[f] for f in rules.panic_faces] == [
        "blue", "green", "red", "yellow", "black", "white"]
    assert sorted(L.REGROUP_FACE_NAMES[f] for f in rules.regroup_faces) == ["+"] * 3 + ["X"] * 3


def test_three_player_track_panic_spaces_and_the_intruders(rules):
    # shared/rulebooks/README.md time-track table: "Panic spaces | 5, 14, 23, 33, 42, 51 | 6, 10, 17, ...";
    # "Roger enters when the counter reaches his field's first space and leaves when it
    # leaves his field; the Shearer enters at the first space of the Shearing field."
    three, four = rules.tracks[3], rules.tracks[4]
    assert three.panic == (5, 14, 23, 33, 42, 51)
    assert (three.roger_enters, three.roger_leaves_after, three.shearer_enters) == (10, 28, 38)
    assert (four.roger_enters, four.roger_leaves_after, four.shearer_enters) == (13, 37, 50)
