"""Claimed names compared by how they look (``server.names``): the fold that makes look-alike
names one (UTS #39 confusable skeletons through ICU, after NFKC and case folding), and the
rule that renames the later of two claims that come to fold alike."""

from __future__ import annotations

from server.names import MAX_NAME, Refolded, name_key, refold, renamed

CYRILLIC_A = "\u0410"  # CYRILLIC CAPITAL LETTER A
GREEK_ALPHA = "\u0391"  # GREEK CAPITAL LETTER ALPHA
CHEROKEE_ADA = "\u13aa\u13a0\u13aa"  # CHEROKEE LETTERS GO, A, GO: it reads ADA


def test_look_alike_spellings_of_a_name_fold_to_one_key() -> None:
    spellings = [
        "Ada",
        "ADA",
        " ada ",
        f"{CYRILLIC_A}da",
        f"{GREEK_ALPHA}da",
        CHEROKEE_ADA,
        "\uff21\uff44\uff41",  # full-width
        "Ada\u200b",  # a zero-width space
        f"{CYRILLIC_A}d\u0430",  # a Cyrillic small a as well
    ]
    assert {name_key(name) for name in spellings} == {name_key("Ada")}


def test_names_that_look_different_stay_apart() -> None:
    names = ["Ada", "Eve", "Bea", "Adam", "Ada Lovelace", "Ian", "lan"]
    assert len({name_key(name) for name in names}) == len(names)
    assert name_key("Ian") == name_key("IAN") == name_key("ian"), "case never counts"


def test_the_later_of_two_look_alike_claims_is_renamed() -> None:
    claims = [
        ("h-cyrillic", f"{CYRILLIC_A}da", 2.0),
        ("h-latin", "Ada", 1.0),
        ("h-second", "Ada 2", 0.5),  # "Ada 2" is claimed already: the look-alike is number 3
        ("h-cherokee", CHEROKEE_ADA, 3.0),
        ("h-eve", "Eve", 4.0),
    ]
    assert refold(claims) == [
        Refolded("h-second", name_key("Ada 2"), "Ada 2"),
        Refolded("h-latin", name_key("Ada"), "Ada"),
        Refolded("h-cyrillic", name_key("Ada 3"), f"{CYRILLIC_A}da 3", f"{CYRILLIC_A}da"),
        Refolded("h-cherokee", name_key("Ada 4"), f"{CHEROKEE_ADA} 4", CHEROKEE_ADA),
        Refolded("h-eve", name_key("Eve"), "Eve"),
    ]
    keys = [each.key for each in refold(claims)]
    assert len(set(keys)) == len(keys)


def test_a_renamed_name_fits_the_name_limit() -> None:
    long = "N" * MAX_NAME
    assert renamed(long, 12) == "N" * (MAX_NAME - 3) + " 12"
    assert len(renamed(long, 12)) == MAX_NAME
