"""The Slack app: slash commands, Block Kit posts, buttons and modals over the core.

``listeners`` registers everything with the bolt app in one ``register(app, handlers)``;
``handlers`` parses each request, makes one core call off the event loop and replies;
``blocks`` turns neutral messages into Block Kit and ``views`` builds the modals and the home
tab; ``publisher`` posts what the scheduler asks for; ``people`` asks Slack who a member is;
``installs`` holds the bot tokens (one workspace, or many through OAuth); ``app`` wires the
bolt app and ``main`` runs the process over HTTP or Socket Mode. Only this package imports
slack_bolt or slack_sdk.
"""
