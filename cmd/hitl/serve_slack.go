package main

import (
	"cmp"
	"os"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl/channel/slack"
)

// slackFlags adds the flags of the Slack app to serve. The returned fill, called when serve
// runs, takes the token and the signing secret from HITL_SLACK_* when their flags are not
// given: as the flags' defaults, --help would print them.
func slackFlags(cmd *cobra.Command, c *slack.Config) (fill func()) {
	f := cmd.Flags()
	f.StringVar(&c.BotToken, "slack-bot-token", "", "the Slack app's bot token, xoxb-…; turns Slack on (HITL_SLACK_BOT_TOKEN, which, unlike the flag, other users cannot see in the process list)")
	f.StringVar(&c.SigningSecret, "slack-signing-secret", "", "the Slack app's signing secret, which Slack's clicks and /hitl are signed with (HITL_SLACK_SIGNING_SECRET)")
	f.StringVar(&c.APIURL, "slack-api-url", os.Getenv(slack.EnvAPIURL), "Slack's Web API, "+slack.DefaultAPIURL+" when empty (HITL_SLACK_API_URL)")
	return func() {
		c.BotToken = cmp.Or(c.BotToken, os.Getenv(slack.EnvBotToken))
		c.SigningSecret = cmp.Or(c.SigningSecret, os.Getenv(slack.EnvSigningSecret))
	}
}
