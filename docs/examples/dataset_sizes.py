# Sizes of the offline datasets (docs/corpora.md). Needs `make data`.
from bayeswe.datasets import (
    load_brown,
    load_lee,
    load_movielens,
    load_newsgroups,
    load_nyt,
    load_reuters,
    load_sotu,
)

for name, load in [("nyt", load_nyt), ("reuters", load_reuters)]:
    bow = load()
    print(f"{name}: {bow.n_docs} documents, V = {bow.n_words}, {bow.n_tokens} tokens")
for name, load in [
    ("lee", load_lee),
    ("newsgroups", load_newsgroups),
    ("sotu", load_sotu),
    ("brown", load_brown),
]:
    corpus = load()
    print(
        f"{name}: {corpus.n_docs} documents, {corpus.n_tokens} tokens, "
        f"metadata {list(corpus.metadata.columns)}"
    )
lee_test = load_lee(test=True)
print(f"lee (test=True): {lee_test.n_docs} documents, {lee_test.n_tokens} tokens")
movies = load_movielens()
print(f"movielens: {movies.corpus.n_docs} users, {movies.corpus.n_tokens} high ratings")
print(movies.sgns_data(negatives=1, seed=1))
