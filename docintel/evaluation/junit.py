"""JUnit XML for CI: one testsuite per golden file and mode, one testcase per question.

A failed question carries ``<failure message="answer_numbers: expected [...], got [...]"
type="answer_numbers">``; a question whose ask crashed carries ``<error>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from docintel.schemas.evaluation import EvalReport


def junit_xml(reports: Sequence[EvalReport]) -> str:
    root = ET.Element("testsuites", name="docintel eval")
    totals = defaultdict(float)
    for report in reports:
        by_file: dict[str, list] = defaultdict(list)
        for r in report.results:
            by_file[r.golden_file].append(r)
        for golden, results in by_file.items():
            stem = Path(golden).stem
            suite = ET.SubElement(root, "testsuite", name=f"{stem}[{report.mode.value}]")
            failures = errors = skipped = 0
            time_s = 0.0
            for r in results:
                case = ET.SubElement(
                    suite, "testcase", classname=f"golden.{stem}.{report.mode.value}", name=r.id,
                    time=f"{r.seconds:.3f}", file=golden,
                )
                time_s += r.seconds
                if r.skipped:
                    skipped += 1
                    ET.SubElement(case, "skipped", message=r.skipped)
                    continue
                if r.known_gap and not r.passed:  # reported, not a regression: CI stays green
                    skipped += 1
                    ET.SubElement(case, "skipped", message=f"known gap: {r.known_gap}; {r.failure_message()}"[:1000])
                elif r.error:
                    errors += 1
                    el = ET.SubElement(case, "error", message=r.error[:500], type="ask_error")
                    el.text = r.question
                elif not r.passed:
                    failures += 1
                    failed = r.failed_checks
                    el = ET.SubElement(
                        case, "failure", message=r.failure_message()[:1000],
                        type=",".join(c.name for c in failed),
                    )
                    el.text = "\n".join(
                        [f"question: {r.question}"]
                        + [c.message() for c in failed]
                        + [f"completeness: {r.answer_completeness.value if r.answer_completeness else '-'}",
                           f"answer: {r.answer}"]
                    )
                out = ET.SubElement(case, "system-out")
                out.text = r.answer
            suite.set("tests", str(len(results)))
            suite.set("failures", str(failures))
            suite.set("errors", str(errors))
            suite.set("skipped", str(skipped))
            suite.set("time", f"{time_s:.3f}")
            totals["tests"] += len(results)
            totals["failures"] += failures
            totals["errors"] += errors
            totals["time"] += time_s
    root.set("tests", str(int(totals["tests"])))
    root.set("failures", str(int(totals["failures"])))
    root.set("errors", str(int(totals["errors"])))
    root.set("time", f"{totals['time']:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(path: Path, reports: Sequence[EvalReport]) -> None:
    from docintel.store.atomic import write_bytes

    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, junit_xml(reports).encode("utf-8"))
