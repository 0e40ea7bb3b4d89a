"""Question parsing: keywords, terms, pointers named in the question, answer shape."""

from docintel.questions.parse import parse_question

__all__ = ["parse_question"]
