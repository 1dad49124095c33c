"""The Textual app: screens, widgets and styles over quiz.core.

Layout (after tconbeer/harlequin):

- ``app.py``: the thin :class:`~quiz.tui.app.QuizApp`, composing one module per job:
  ``startup.py`` (start-up loading), ``history.py`` (the history's lifecycle),
  ``routing.py`` (modes, sessions, walk-throughs; ``modes.py`` is the modes' table),
  ``settings_sync.py`` (settings changed in the app), ``heap.py`` (garbage collection),
  ``textual_private.py`` (every use of Textual's private API). No module here imports
  ``app.py``: screens post messages. Importing it loads neither sympy nor the core.
- ``messages.py``: messages named in the past tense (plain classes); workers report only
  through them.
- ``data.py``: what the screens show, computed without Textual (home figures, stats,
  template previews, the derivation's layout); run by the screens in worker threads.
- ``screens/``: one module per screen, imported when the screen is first shown.
- ``widgets/``: one module per reusable widget.
- ``app.tcss``: the styles every screen shares and those of the screens the app opens
  on; every other screen keeps its own (``DEFAULT_CSS``), theme variables only.

Start-up: the home screen is the default screen and paints first; after the first
frame (Textual's ``Ready``) the app opens the history, reads the template ids and
computes today's figures (``HomeReady``) on the event loop; once they are painted a
thread worker reads the settings model (``StateOpened``) and loads the bank (sympy;
``BankLoaded``). ``quiz drill`` paints its
first question first instead: drawn on the event loop before the first frame from the
same cheap reads and the compiled bank's view of its template, its session following
once the bank is loaded. Drawing, grading and finishing a mock also run in threads,
since they may call sympy.
"""
