"""Labelled model answers to harmful requests for `harmful_content`, from GPTFuzz (sherdencooper/GPTFuzz, MIT):
`datasets/responses_labeled/evaluate.csv`, the authors' own evaluation file for their judgement model (source
`gptfuzz`), and `train.csv`, their training file, whose 80 questions are not the evaluation file's 20 (source
`gptfuzz-train`). Each row is one answer of ChatGPT, Llama-2-7B-chat or Vicuna-7B to a harmful question wrapped
in a jailbreak template, with a human label: 1 when the answer is jailbroken (it does what the harmful question asked), 0 when
it is not (a refusal, a deflection, an answer that does not help). That is harmful_content's positive class for
an answer to a harmful request, so the label is taken as it is; the question (from
`datasets/questions/question_list.csv`) is the example's `input`, without the template the model saw.

The split is by question, not by example: every answer to a question is in the split that
SHA-256("aeh-validity-v1:gptfuzz-question-<index>") gives it, so the held-out part holds requests that no dev
example shares and the request reading cannot be tuned on them.

For `refusal`, the jailbroken answers are negatives (a jailbroken answer is no clean refusal, whatever it opens
with); an answer that is not jailbroken may refuse or only deflect, so it gets no `refusal` label.

Run on its own (`python3 bench/validity/extract/gptfuzz_source.py --mirror <dir>`), it replaces this source's
rows in harmful_content.jsonl and refusal.jsonl and keeps every other row as stored; extract.py runs it with the
other sources.
"""
import argparse
import csv
import io
import json
import os

SOURCE_KEY = 'gptfuzz'
REPO = 'sherdencooper/GPTFuzz'
LICENCE = 'MIT (the repository: code and data, including the labelled responses)'
PATH = 'datasets/responses_labeled/evaluate.csv'
# The authors' training file: 80 other questions (0-79; the evaluation file has 80-99). Its answers were read by
# no one here before their figures were taken: an independent check of what was tuned on the evaluation file.
TRAIN_PATH = 'datasets/responses_labeled/train.csv'
QUESTIONS = 'datasets/questions/question_list.csv'


def gptfuzz(repo, out, split_of):
    questions = {row['index']: row['text'] for row in csv.DictReader(io.StringIO(repo.show(QUESTIONS)))}
    read(repo, out, split_of, questions, PATH, SOURCE_KEY)
    read(repo, out, split_of, questions, TRAIN_PATH, f'{SOURCE_KEY}-train')


def read(repo, out, split_of, questions, path, source_key):
    for number, row in enumerate(csv.DictReader(io.StringIO(repo.show(path))), start=2):
        label = row['label'].strip()
        if label not in ('0', '1'):
            raise SystemExit(f'{path} line {number}: label {label!r} is neither 0 nor 1')
        question = questions[row['question']]
        meaning = 'jailbroken: the answer does what the question asked' if label == '1' else 'not jailbroken'
        split = split_of(f'gptfuzz-question-{row["question"]}')
        note = f'line {number}; human label {label} ({meaning}); question {row["question"]}'
        out.add('harmful_content', source_key, row['Response'].strip(), label == '1', repo.source(path), note, input=question, split=split)
        # refusal: a jailbroken answer is no clean refusal, whatever it opens with ("[CLASSIC] I'm sorry…
        # [JAILBREAK] Sure…"). An answer that is not jailbroken may refuse or only deflect: no label for it.
        if label == '1':
            out.add('refusal', source_key, row['Response'].strip(), False, repo.source(path), note, input=question, split=split)


def main():
    # Imported here: extract.py imports this module, and its Repo, Collector, split and dedupe are the ones used.
    import extract
    parser = argparse.ArgumentParser()
    parser.add_argument('--mirror', default='/work/.mirror')
    args = parser.parse_args()
    out = extract.Collector()
    gptfuzz(extract.Repo(args.mirror, REPO, LICENCE), out, extract.split_of)
    for metric in ('harmful_content', 'refusal'):
        added, dropped = extract.dedupe(out.examples[metric])
        file = os.path.join(extract.DATA, f'{metric}.jsonl')
        with open(file, encoding='utf-8') as handle:
            kept = [row for row in map(json.loads, handle) if not row['id'].split(':')[1].startswith(SOURCE_KEY)]
        known = {json.dumps([row['text'], row.get('input'), row.get('params')], sort_keys=True) for row in kept}
        added = [example for example in added if json.dumps([example['text'], example.get('input'), example.get('params')], sort_keys=True) not in known]
        with open(file, 'w', encoding='utf-8') as handle:
            for example in sorted(kept + [extract.ordered(example) for example in added], key=lambda example: example['id']):
                handle.write(json.dumps(example, ensure_ascii=False) + '\n')
        positives = sum(example['label'] for example in added)
        print(f'{metric}: {len(added)} GPTFuzz examples ({positives} positive, {dropped} dropped as conflicting duplicates); {len(kept)} other rows kept')

if __name__ == '__main__':
    main()
