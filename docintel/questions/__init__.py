"""Question parsing: keywords, terms, pointers named in the question, answer shape."""

from docintel.questions.parse import parse_question, split_of

__all__ = ["parse_question", "split_of"]
