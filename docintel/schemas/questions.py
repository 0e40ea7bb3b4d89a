"""The parsed question: what the question parser hands to retrieval, generation and the loop."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from docintel.schemas.answers import PendingReference


class AnswerShape(str, Enum):
    """What kind of answer the question asks for."""

    value = "value"  # a number, a date, an amount: "What is the BLEU score of ...?"
    comparison = "comparison"  # "Is A better than B?", "How does A compare to B?"
    yes_no = "yes_no"  # "Do learned embeddings give similar results?"
    definition = "definition"  # "What is a ...?", "Define ..."
    list = "list"  # "Which ...?", "List the ..."
    other = "other"


class ParsedQuestion(BaseModel):
    """A question taken apart for retrieval and generation."""

    text: str = Field(description="The question as asked.")
    keywords: list[str] = Field(default_factory=list, description="Lower-case content words, stop words out.")
    terms: list[str] = Field(
        default_factory=list, description='Multi-word terms kept whole: "positional embeddings".'
    )
    numbers: list[str] = Field(default_factory=list, description="Numbers and ids named in the question.")
    pointers: list[PendingReference] = Field(
        default_factory=list, description='Pointers named in the question itself: "in Table 3".'
    )
    shape: AnswerShape = Field(AnswerShape.other, description="The answer shape asked for.")
    focus: str | None = Field(
        None, description='The thing asked for: "fine" in "What fine does ...?", "parties" in "Which parties ...?".'
    )
    weights: dict[str, float] = Field(
        default_factory=dict, description="Keyword -> corpus idf, filled in by the orchestrator from the page index."
    )
    unused: list[str] = Field(
        default_factory=list,
        description="Keywords the answer's document never uses, filled in with the weights: a name among them "
        '("a resident of Germany" in tax instructions that never say "Germany") is one the answer cannot cover.',
    )
    doc_hints: list[str] = Field(
        default_factory=list,
        description='Words that name a document ("the Transformer paper" -> ["transformer"]).',
    )
    premise: str = Field(
        "", description='What the question states before it asks ("We get thousands of alerts a day."); "" if nothing.'
    )
    asked: str = Field("", description='The sentence that asks ("What can handlers do ...?"); the whole text if no premise.')
    source: bool = Field(
        False, description='The asked part asks where something comes from ("Which paper introduced ...?", '
        '"Who proposed ...?"): the citations of the sentences that answer are followed to the reference list.'
    )
    defines: str | None = Field(
        None, description='The term a definition question asks about ("What does purge mean in SP 800-88?" -> '
        '"purge"); None for any other question.'
    )
    asks: list[str] = Field(
        default_factory=list,
        description='The questions the asked part holds, one each: "Does X have to be encrypted, and what '
        'applies over the PSTN?" asks two. One item (or none) for a single question.',
    )
