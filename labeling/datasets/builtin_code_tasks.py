"""A small built-in set of code tasks with unit tests, for runs without downloaded data.

`builtin_code_tasks()` returns dicts {question, tests, entry_point} (tests are assert lines
in MBPP style); the dataset adapter wraps them into `Problem`s. `builtin_code_solutions()`
holds one reference solution per task, keyed by entry point, so tests can show that every
task is solvable in the sandbox. Tasks span easy to medium and avoid floating-point output
except where tolerance is spelled out in the test.
"""

from __future__ import annotations

_TASKS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    (
        "add_numbers",
        "Write a function `add_numbers(a, b)` that returns the sum of two integers.",
        (
            "add_numbers(2, 3) == 5",
            "add_numbers(-4, 4) == 0",
            "add_numbers(10**12, 1) == 10**12 + 1",
        ),
        "def add_numbers(a, b):\n    return a + b\n",
    ),
    (
        "is_palindrome",
        "Write a function `is_palindrome(s)` that returns True if the string reads the same "
        "forwards and backwards, ignoring case and non-alphanumeric characters.",
        (
            "is_palindrome('A man, a plan, a canal: Panama') is True",
            "is_palindrome('abc') is False",
            "is_palindrome('') is True",
        ),
        "def is_palindrome(s):\n"
        "    t = [c.lower() for c in s if c.isalnum()]\n    return t == t[::-1]\n",
    ),
    (
        "fizzbuzz",
        "Write a function `fizzbuzz(n)` that returns a list of strings for 1..n: 'Fizz' for "
        "multiples of 3, 'Buzz' for multiples of 5, 'FizzBuzz' for both, else the number.",
        (
            "fizzbuzz(5) == ['1', '2', 'Fizz', '4', 'Buzz']",
            "fizzbuzz(15)[-1] == 'FizzBuzz'",
            "fizzbuzz(0) == []",
        ),
        "def fizzbuzz(n):\n    out = []\n    for i in range(1, n + 1):\n"
        "        s = ('Fizz' if i % 3 == 0 else '') + ('Buzz' if i % 5 == 0 else '')\n"
        "        out.append(s or str(i))\n    return out\n",
    ),
    (
        "second_largest",
        "Write a function `second_largest(nums)` that returns the second largest distinct "
        "value in a list, or None if there is none.",
        (
            "second_largest([3, 1, 4, 1, 5]) == 4",
            "second_largest([2, 2]) is None",
            "second_largest([-1, -2]) == -2",
        ),
        "def second_largest(nums):\n"
        "    d = sorted(set(nums))\n    return d[-2] if len(d) > 1 else None\n",
    ),
    (
        "count_vowels",
        "Write a function `count_vowels(s)` that counts the vowels (a, e, i, o, u, either case).",
        (
            "count_vowels('Hello World') == 3",
            "count_vowels('xyz') == 0",
            "count_vowels('AEIOU') == 5",
        ),
        "def count_vowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)\n",
    ),
    (
        "factorial",
        "Write a function `factorial(n)` that returns n! for a non-negative integer n.",
        ("factorial(0) == 1", "factorial(5) == 120", "factorial(20) == 2432902008176640000"),
        "def factorial(n):\n"
        "    r = 1\n    for i in range(2, n + 1):\n        r *= i\n    return r\n",
    ),
    (
        "fibonacci",
        "Write a function `fibonacci(n)` that returns the n-th Fibonacci number, with "
        "fibonacci(0) == 0 and fibonacci(1) == 1.",
        ("fibonacci(0) == 0", "fibonacci(10) == 55", "fibonacci(90) == 2880067194370816120"),
        "def fibonacci(n):\n"
        "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    ),
    (
        "reverse_words",
        "Write a function `reverse_words(s)` that reverses the order of words in a sentence, "
        "separating them by single spaces.",
        (
            "reverse_words('the sky is blue') == 'blue is sky the'",
            "reverse_words('  hello   world ') == 'world hello'",
            "reverse_words('') == ''",
        ),
        "def reverse_words(s):\n    return ' '.join(reversed(s.split()))\n",
    ),
    (
        "is_prime",
        "Write a function `is_prime(n)` that returns True if n is a prime number.",
        (
            "is_prime(2) is True",
            "is_prime(1) is False",
            "is_prime(97) is True",
            "is_prime(91) is False",
        ),
        "def is_prime(n):\n    if n < 2:\n        return False\n    i = 2\n    while i * i <= n:\n"
        "        if n % i == 0:\n            return False\n        i += 1\n    return True\n",
    ),
    (
        "gcd",
        "Write a function `gcd(a, b)` that returns the greatest common divisor of two "
        "non-negative integers (gcd(0, 0) == 0).",
        ("gcd(12, 18) == 6", "gcd(0, 5) == 5", "gcd(0, 0) == 0", "gcd(17, 13) == 1"),
        "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
    ),
    (
        "flatten",
        "Write a function `flatten(items)` that flattens arbitrarily nested lists into one list.",
        (
            "flatten([1, [2, [3, [4]]], 5]) == [1, 2, 3, 4, 5]",
            "flatten([]) == []",
            "flatten([[], [[]]]) == []",
        ),
        "def flatten(items):\n    out = []\n    for x in items:\n"
        "        out.extend(flatten(x) if isinstance(x, list) else [x])\n    return out\n",
    ),
    (
        "char_frequency",
        "Write a function `char_frequency(s)` that returns a dict mapping each character to "
        "the number of times it occurs.",
        ("char_frequency('abca') == {'a': 2, 'b': 1, 'c': 1}", "char_frequency('') == {}"),
        "def char_frequency(s):\n"
        "    d = {}\n    for c in s:\n        d[c] = d.get(c, 0) + 1\n    return d\n",
    ),
    (
        "binary_search",
        "Write a function `binary_search(nums, target)` that returns the index of target in a "
        "sorted list, or -1 if it is absent.",
        (
            "binary_search([1, 3, 5, 7], 5) == 2",
            "binary_search([1, 3, 5, 7], 4) == -1",
            "binary_search([], 1) == -1",
        ),
        "def binary_search(nums, target):\n    lo, hi = 0, len(nums) - 1\n    while lo <= hi:\n"
        "        mid = (lo + hi) // 2\n        if nums[mid] == target:\n            return mid\n"
        "        if nums[mid] < target:\n            lo = mid + 1\n        else:\n"
        "            hi = mid - 1\n    return -1\n",
    ),
    (
        "merge_sorted",
        "Write a function `merge_sorted(a, b)` that merges two sorted lists into one sorted list.",
        (
            "merge_sorted([1, 4, 9], [2, 3, 10]) == [1, 2, 3, 4, 9, 10]",
            "merge_sorted([], [1]) == [1]",
            "merge_sorted([2, 2], [2]) == [2, 2, 2]",
        ),
        "def merge_sorted(a, b):\n    return sorted(a + b)\n",
    ),
    (
        "balanced_brackets",
        "Write a function `balanced_brackets(s)` that returns True if every (, [ and { in s is "
        "closed in the right order.",
        (
            "balanced_brackets('([]{})') is True",
            "balanced_brackets('([)]') is False",
            "balanced_brackets('((') is False",
            "balanced_brackets('') is True",
        ),
        "def balanced_brackets(s):\n    pairs = {')': '(', ']': '[', '}': '{'}\n    stack = []\n"
        "    for c in s:\n        if c in '([{':\n            stack.append(c)\n"
        "        elif c in pairs:\n            if not stack or stack.pop() != pairs[c]:\n"
        "                return False\n    return not stack\n",
    ),
    (
        "running_sum",
        "Write a function `running_sum(nums)` that returns the list of prefix sums.",
        (
            "running_sum([1, 2, 3, 4]) == [1, 3, 6, 10]",
            "running_sum([]) == []",
            "running_sum([5, -5]) == [5, 0]",
        ),
        "def running_sum(nums):\n    out, s = [], 0\n    for x in nums:\n        s += x\n"
        "        out.append(s)\n    return out\n",
    ),
    (
        "anagrams",
        "Write a function `anagrams(a, b)` that returns True if the two strings are anagrams "
        "of each other (case-sensitive, spaces count).",
        (
            "anagrams('listen', 'silent') is True",
            "anagrams('ab', 'abb') is False",
            "anagrams('', '') is True",
        ),
        "def anagrams(a, b):\n    return sorted(a) == sorted(b)\n",
    ),
    (
        "digit_sum",
        "Write a function `digit_sum(n)` that returns the sum of the decimal digits of an "
        "integer (the sign is ignored).",
        ("digit_sum(12345) == 15", "digit_sum(-907) == 16", "digit_sum(0) == 0"),
        "def digit_sum(n):\n    return sum(int(c) for c in str(abs(n)))\n",
    ),
    (
        "roman_to_int",
        "Write a function `roman_to_int(s)` that converts a Roman numeral to an integer.",
        (
            "roman_to_int('III') == 3",
            "roman_to_int('MCMXCIV') == 1994",
            "roman_to_int('XLII') == 42",
        ),
        "def roman_to_int(s):\n"
        "    v = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}\n"
        "    total = 0\n    for i, c in enumerate(s):\n"
        "        if i + 1 < len(s) and v[c] < v[s[i + 1]]:\n            total -= v[c]\n"
        "        else:\n            total += v[c]\n    return total\n",
    ),
    (
        "mean_of_list",
        "Write a function `mean_of_list(nums)` that returns the arithmetic mean of a non-empty "
        "list of numbers as a float.",
        (
            "abs(mean_of_list([1, 2, 3, 4]) - 2.5) < 1e-9",
            "abs(mean_of_list([7]) - 7.0) < 1e-9",
            "isinstance(mean_of_list([1, 2]), float)",
        ),
        "def mean_of_list(nums):\n    return sum(nums) / len(nums)\n",
    ),
)


def builtin_code_tasks() -> list[dict]:
    """The built-in code tasks: [{question, tests (assert lines), entry_point}, ...]."""
    return [
        {"question": q, "tests": tuple(f"assert {t}" for t in tests), "entry_point": name}
        for name, q, tests, _ in _TASKS
    ]


def builtin_code_solutions() -> dict[str, str]:
    """A reference solution per task, keyed by entry point (for tests and benchmarks)."""
    return {name: solution for name, _, _, solution in _TASKS}
