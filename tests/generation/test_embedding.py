"""The sentence-embedding model (docintel/embedding.py): all-MiniLM-L6-v2 run in NumPy gives
what sentence-transformers gives, whatever the batch."""

from __future__ import annotations

import numpy as np
import pytest

from docintel import embedding

QUESTION = "Where should we avoid storing the session secret?"
SENTENCES = [
    "Secrets used for session binding SHOULD NOT be placed in insecure locations such as HTML5 Local Storage "
    "due to the potential exposure of local storage to cross-site scripting (XSS) attacks.",
    "Browser cookies are the predominant mechanism by which a session will be created and tracked for a "
    "subscriber accessing a service.",
    "The challenge nonce SHALL be at least 64 bits in length.",
]


@pytest.fixture(scope="module")
def model():
    assert embedding.available(), "the embedding model is not installed: run `make install`"
    return embedding.encoder()


def test_similarities_match_sentence_transformers(model):
    """Reference values from sentence-transformers 5 with PyTorch 2.13 (CPU) on the same weights,
    computed once outside the project (it does not depend on PyTorch)."""
    got = embedding.similarities(QUESTION, SENTENCES)
    assert np.allclose(got, [0.68168, 0.33536, 0.11580], atol=1e-4)
    assert np.allclose(model.encode([QUESTION])[0][:4], [-0.07519, 0.10026, -0.08603, -0.02969], atol=1e-4)


def test_a_text_encodes_the_same_alone_and_padded_in_a_batch(model):
    alone = model.encode([SENTENCES[2]])[0]
    batched = model.encode([SENTENCES[0], SENTENCES[2], "x " * 200])[1]  # padded to the longest; the last is cut
    assert np.allclose(alone, batched, atol=1e-5)
    assert abs(float(np.linalg.norm(alone)) - 1.0) < 1e-5


def test_the_gelu_worked_in_place_is_the_formula_bit_for_bit():
    """The GELU (40% of encoding time when each step made a temporary) is worked in place; it must
    give what 0.5 x (1 + erf(x / sqrt 2)) with A&S 7.1.26's erf gives, to the bit, and leave its
    input as it was."""
    import math

    def erf(v: np.ndarray) -> np.ndarray:
        a = np.abs(v)
        t = 1.0 / (1.0 + 0.3275911 * a)
        return np.sign(v) * (1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                                    + 0.254829592) * t * np.exp(-a * a))

    x = (np.random.default_rng(0).standard_normal((4, 7, 96)) * 3).astype(np.float32)
    x[0, 0, :3] = [0.0, -0.0, 40.0]
    kept = x.copy()
    assert np.array_equal(embedding._erf(x), erf(x))
    got = embedding._gelu(x)
    assert got.dtype == np.float32 and np.array_equal(got, 0.5 * x * (1.0 + erf(x * (1.0 / math.sqrt(2.0)))))
    assert np.array_equal(x, kept)


def test_the_cache_returns_what_the_model_gives(model):
    first = embedding.embed(SENTENCES)
    again = embedding.embed(list(reversed(SENTENCES)))
    assert np.allclose(first[::-1], again)
    assert np.allclose(first, model.encode(SENTENCES), atol=1e-6)


# -- the extractive generator quotes what is closest in meaning --------------------------------

MODULES = [  # SP 800-64 Rev. 2, pages 41-42 (5.3, reusable modules)
    "As applications and information systems become more object-oriented and component-based, it becomes "
    "necessary to consider the security implications as well as cost of reusing software modules across "
    "multiple projects and perhaps across multiple organizations.",
    "It is recommended that components and software modules be created with reuse in mind, particularly for "
    "code that must be relied upon to provide security functionality across a broad range of projects.",
    "The certification & accreditation of these modules, much like unit testing for functional evaluation, "
    "provides developers, architects, and engineers with a ready toolbox of trusted code.",
    "",
    "Accredited modules should be well documented as to their features and functions; accreditation "
    "documentation should be stored along with the module.",
    "The module and documentation should be digitally signed by the developer (or development team) to "
    "preserve the integrity and authenticity of the accreditation.",
]
MODULES_Q = ("We'd like to build a toolbox of accredited security code modules that other development projects "
             "can reuse. How should each module and its accreditation paperwork be kept and protected?")


def _modules_answer(**settings_env):
    from docintel.generation.extractive import create
    from docintel.questions import parse_question
    from docintel.schemas.answers import RetrievedVia
    from docintel.schemas.generation import GenerationRequest, Passage, PassageLine
    from docintel.settings import Settings

    lines = [PassageLine(line_num=i + 1, text=t) for i, t in enumerate(MODULES)]
    p = Passage(passage_id="P1", doc_id="d", doc="SP800-64r2.pdf", page=42, page_label="36", line_start=1,
                line_end=len(lines), parsing_method="pymupdf", retrieved_via=RetrievedVia.primary, lines=lines)
    gen = create(Settings.load(env=settings_env))
    return gen.generate(GenerationRequest(question=MODULES_Q, parsed=parse_question(MODULES_Q), passages=[p]))


def test_the_sentences_closest_in_meaning_are_quoted_beside_those_the_words_choose(model):
    """"kept and protected" is answered by "stored along with the module", which shares no word
    with it; the question's words choose the toolbox sentences and the digital signature."""
    out = _modules_answer()
    assert "stored along with the module" in out.answer
    assert "toolbox of trusted code" in out.answer and "digitally signed" in out.answer  # still quoted


def test_docintel_meaning_0_turns_it_off(model):
    out = _modules_answer(DOCINTEL_MEANING="0")
    assert "stored along with the module" not in out.answer and "digitally signed" in out.answer
