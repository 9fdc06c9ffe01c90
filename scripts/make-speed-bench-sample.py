#!/usr/bin/env python3
"""Writes servebench's SMALL GENERATED samples of the SPEED-Bench and Spec-Bench file
formats (data/speed_bench/, data/spec_bench/). Not the real corpora: every prompt
here is a generated sentence, written so the files have the published shape (fields,
subsets, categories, multi-turn rows) for tests and demos on the simulator. The real
data: NVIDIA's prepare.py for huggingface.co/datasets/nvidia/SPEED-Bench, and
hemingkx/Spec-Bench data/spec_bench/question.jsonl (docs/bench.md). Deterministic:
rerunning it rewrites the same bytes.

    python3 scripts/make-speed-bench-sample.py        # from the repository root
"""
import json
from pathlib import Path

NOTE = "[servebench generated sample, not SPEED-Bench]"

# Per category: a generated task sentence and a follow-up (for the multi-turn rows).
QUALITATIVE = {
    "coding": ("Write a function that merges two sorted lists of integers into one sorted list.",
               "Now make it work on iterators without building intermediate lists."),
    "humanities": ("Explain how the printing press changed the spread of ideas in Europe.",
                   "Compare that with the effect of the telegraph."),
    "math": ("Find all integers n such that n squared plus n plus 41 is a perfect square.",
             "Prove that your list is complete."),
    "multilingual": ("Translate into French: the meeting moved to Thursday at noon.",
                     "Now translate the same sentence into German."),
    "qa": ("What is the boiling point of water at the top of a 3000 metre mountain?",
           "Why does it change with altitude?"),
    "rag": ("Context: the river rises in the hills and reaches the sea after 200 km. "
            "Question: how long is the river?",
            "Where does it rise?"),
    "reasoning": ("Three boxes hold apples, oranges and both; every label is wrong. "
                  "Which box do you open first?",
                  "What if only one label were wrong?"),
    "roleplay": ("You are a lighthouse keeper in 1900. Describe your evening routine.",
                 "A storm is coming. What do you do?"),
    "stem": ("Explain why a heavier pendulum bob does not change the period of a pendulum.",
             "What does change the period?"),
    "summarization": ("Summarise in two sentences: a town built a bridge, traffic moved off "
                      "the old road, and the shops on it closed within a year.",
                      "Now summarise it in one sentence."),
    "writing": ("Write a short poem about the first snow of the year.",
                "Rewrite it as a haiku."),
}
THROUGHPUT = {
    "low_entropy": "List the numbers from one to forty, each followed by its square.",
    "mixed": "Describe the steps to set up a small home network, then list common mistakes.",
    "high_entropy": "Write an unusual story about a clock that runs backwards on Sundays.",
}
SPEC_BENCH = ["writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem",
              "humanities", "translation", "summarization", "qa", "math_reasoning", "rag"]


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main():
    root = Path(__file__).resolve().parent.parent / "data"
    rows = []
    for category, (first, follow_up) in QUALITATIVE.items():
        for i in range(2):
            # The second row of each category is a two-turn conversation, as many
            # qualitative rows are (prepare.py writes one user message per turn).
            turns = [f"{NOTE} {first}"] + ([f"{NOTE} {follow_up}"] if i == 1 else [])
            rows.append({"question_id": f"{category}-{i}", "category": category,
                         "source": "servebench-generated",
                         "messages": [{"role": "user", "content": t} for t in turns]})
    write_jsonl(root / "speed_bench" / "qualitative.jsonl", rows)
    rows = []
    for category, text in THROUGHPUT.items():
        for i in range(2):
            # Padded by repetition to roughly 1k tokens, as the throughput_1k rows are.
            body = " ".join([f"{NOTE} {text}"] * 40)
            rows.append({"question_id": f"{category}-{i}", "category": category,
                         "source": "servebench-generated",
                         "messages": [{"role": "user", "content": body}]})
    write_jsonl(root / "speed_bench" / "throughput_1k.jsonl", rows)
    rows = []
    for qid, category in enumerate(SPEC_BENCH, start=1):
        first = QUALITATIVE.get(category, (f"Answer a {category} question in a few sentences.",
                                           "Expand on your answer."))
        rows.append({"question_id": qid, "category": category,
                     "turns": [f"{NOTE} {first[0]}", f"{NOTE} {first[1]}"]})
    write_jsonl(root / "spec_bench" / "question.jsonl", rows)


if __name__ == "__main__":
    main()
