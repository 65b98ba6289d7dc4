"""The team's web page: one more front end over the core (`torchquiz web`).

Server-rendered Jinja2 templates (autoescaped), plain CSS, no script. app.py builds the
aiohttp application (routes, the security middleware, sessions); pages.py renders each page;
main.py is the process.
"""
