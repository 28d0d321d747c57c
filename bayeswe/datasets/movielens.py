"""MovieLens 100K as SGNS data, the way Rudolph et al. (2016) and Yrjänäinen et al. (§4.2) used it.

What exactly is done (:func:`load_movielens` and :meth:`MovieLens.sgns_data`):

1. Ratings: the 100,000 ratings of ml-100k (943 users, 1,682 movies), from the
   copy in ``recbole==1.2.1`` (``recbole/dataset_example/ml-100k``).
2. Movies: those with at least ``min_ratings=50`` ratings of any value. This gives
   V = 603 movies, the vocabulary size of Yrjänäinen et al.'s Table 4.
3. A user's "sentence" (document) is the set of those movies the user rated
   ``>= min_rating = 4`` (of 5), ordered by movie id (order does not matter, see
   4): 942 users have at least one, 49,348 ratings in all.
4. Context: every *other* movie in the same user's set (Rudolph et al.'s
   exponential-family embedding context; no window). A user with ``k`` movies
   contributes the ``k (k - 1)`` ordered (movie, other movie) positive pairs:
   4,643,750 positives in all.
5. ``negatives`` (default 1) negative samples per positive with the same target
   movie and a context drawn from the movie frequencies (number of users who
   rated it >= 4) to the power 0.75.

Words are readable titles, ``"Toy Story (1995)"``; the 18 title-year duplicates
in ml-100k get the movie id appended (``"... [id]"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayeswe.corpus.documents import Corpus
from bayeswe.corpus.pairs import sgns_data_from_ids
from bayeswe.corpus.types import CorpusError, Vocabulary
from bayeswe.datasets.sources import source_path
from bayeswe.sgns.data import SGNSData

__all__ = ["MovieLens", "load_movielens"]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class MovieLens:
    """ml-100k ratings, movies and users, and the SGNS "sentences" built from them.

    Attributes
    ----------
    ratings
        All 100,000 ratings: ``user``, ``item``, ``rating`` (1-5), ``timestamp``.
    movies
        The kept movies (``min_ratings`` or more ratings), vocabulary order:
        ``item``, ``word`` (unique title), ``title``, ``year``, ``genres``,
        ``n_ratings``, ``n_high`` (ratings >= ``min_rating``).
    users
        ``user``, ``age``, ``gender``, ``occupation``, ``zip_code``.
    corpus
        One document per user with at least one kept high rating: the ``word`` of
        each such movie, in movie-id order; metadata ``user``, ``age``, ``gender``,
        ``occupation``.
    """

    ratings: pd.DataFrame
    movies: pd.DataFrame
    users: pd.DataFrame
    corpus: Corpus
    min_ratings: int
    min_rating: float

    @property
    def vocabulary(self) -> Vocabulary:
        """The kept movies; counts = users who rated each ``>= min_rating``."""
        return Vocabulary(tuple(self.movies["word"]), self.movies["n_high"].to_numpy())

    def sgns_data(
        self, *, negatives: int = 1, seed: int | None, progress: Progress | None = None
    ) -> SGNSData:
        """SGNS pair counts: all ordered pairs within a user's set, plus negatives."""
        tokens, ptr = self.corpus.token_ids(self.vocabulary)
        return sgns_data_from_ids(
            [(tokens, ptr)],
            self.vocabulary,
            window=None,
            negatives=negatives,
            seed=seed,
            progress=progress,
        )


def _read_table(path, names: list[str]) -> pd.DataFrame:
    try:
        table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise CorpusError(
            f"{path} is missing: run `bayeswe data fetch --force movielens`"
        ) from None
    if len(table.columns) != len(names):
        raise CorpusError(f"{path.name}: expected columns {names}, got {list(table.columns)}")
    table.columns = names
    return table


def load_movielens(
    *,
    min_ratings: int = 50,
    min_rating: float = 4,
    download: bool = False,
    progress: Progress | None = None,
) -> MovieLens:
    """MovieLens 100K (Harper & Konstan 2015) prepared for SGNS (see the module notes).

    With the defaults: V = 603 movies, 942 user documents, 49,348 tokens (high
    ratings), 4,643,750 positive pairs. Source: ``recbole==1.2.1`` (MIT; the
    MovieLens data are under GroupLens' research-use terms).
    """
    root = source_path("movielens", download=download, progress=progress)
    try:
        ratings = _read_table(root / "ml-100k.inter", ["user", "item", "rating", "timestamp"])
        ratings = ratings.astype({"user": int, "item": int, "rating": float, "timestamp": float})
        items = _read_table(root / "ml-100k.item", ["item", "title", "year", "genres"])
        items["item"] = items["item"].astype(int)
        users = _read_table(root / "ml-100k.user", ["user", "age", "gender", "occupation", "zip"])
        users = users.astype({"user": int, "age": int}).rename(columns={"zip": "zip_code"})
    except ValueError as exc:
        raise CorpusError(f"ml-100k files in {root} are not the expected tables: {exc}") from None
    n_ratings = ratings.groupby("item").size()
    high = ratings[ratings["rating"] >= min_rating]
    n_high = high.groupby("item").size()
    kept = np.sort(n_ratings.index[n_ratings.to_numpy() >= min_ratings].to_numpy())
    movies = items.set_index("item").loc[kept].reset_index()
    if movies.empty:
        raise CorpusError(f"no movie has at least min_ratings={min_ratings} ratings")
    label = movies["title"] + " (" + movies["year"] + ")"
    dup = label.duplicated(keep=False)
    label[dup] = label[dup] + " [" + movies.loc[dup, "item"].astype(str) + "]"
    movies.insert(1, "word", label)
    movies["n_ratings"] = n_ratings.loc[kept].to_numpy()
    movies["n_high"] = n_high.reindex(kept, fill_value=0).to_numpy()
    word_of = dict(zip(movies["item"], movies["word"], strict=True))
    high = high[high["item"].isin(word_of)].sort_values(["user", "item"])
    docs, ids = [], []
    for user, group in high.groupby("user", sort=True):
        docs.append(tuple(word_of[i] for i in group["item"]))
        ids.append(int(user))
    meta = users.set_index("user").loc[ids].reset_index()[["user", "age", "gender", "occupation"]]
    corpus = Corpus(
        "movielens",
        tuple(docs),
        tuple(f"user-{u}" for u in ids),
        meta,
        description=(
            f"ml-100k from recbole==1.2.1: per user, the movies with >= {min_ratings} "
            f"ratings that the user rated >= {min_rating}"
        ),
    )
    return MovieLens(ratings, movies, users, corpus, int(min_ratings), float(min_rating))
