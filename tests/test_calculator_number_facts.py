"""Facts about whole numbers stated in words (`verifiers/calculator/number_facts.py`): what is
read without the sympy worker, and what a worker that fails leaves unread. The families and
their hedges are rows of `tests/data/calculator_competition.yaml`, run through the verifier."""

from verifiers.calculator.number_facts import primality, stated_facts


def _outcomes(text, prime_of):
    return [(r.outcome, r.text) for r in stated_facts(text, prime_of)]


def test_divisibility_needs_no_worker_but_primes_do():
    text = "So 24 is divisible by 9, and then 91 is prime."
    assert _outcomes(text, None) == [("false", "24 is divisible by 9")]
    assert _outcomes(text, primality) == [
        ("false", "24 is divisible by 9"), ("false", "91 is prime")
    ]


def test_a_worker_that_fails_leaves_the_fact_unread():
    assert _outcomes("Since 2018 is a prime number, we go on.", lambda n: None) == []


def test_primality_gives_the_smallest_factor():
    assert primality(97) == (True, None)
    assert primality(2018) == (False, 2)
    assert primality(1) == (False, None)
    assert primality(10**20 + 39)[0] is True


def test_the_least_prime_of_a_range_needs_the_worker():
    text = "The smallest prime greater than 20 is 29."
    assert _outcomes(text, None) == []
    assert _outcomes(text, lambda n: None) == []
    assert _outcomes(text, primality) == [("false", "The smallest prime greater than 20 is 29")]
    # a multiple needs no worker
    assert _outcomes("The smallest 3-digit multiple of 33 is 99.", None) == [
        ("false", "The smallest 3-digit multiple of 33 is 99")
    ]


def test_a_number_past_the_limit_is_not_read():
    # 5,000 digits: past what Python turns into an int by default, and far past `_LIMIT`
    big = "9" * 5000
    for text in (
        f"So {big} is divisible by 9.",
        f"The remainder when {big} is divided by 7 is 3.",
        f"The GCD of {big} and 6 is 3.",
        f"The smallest prime greater than {big} is 7.",
        f"Then {big} is the smallest multiple of 3.",
    ):
        assert _outcomes(text, primality) == []
