<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>ConversationListModel</name>
    <message numerus="yes">
        <source>%n unread</source>
        <translation>
            <numerusform>%n unread</numerusform>
            <numerusform>%n unread</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HealthView</name>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation>
            <numerusform>%n day ago</numerusform>
            <numerusform>%n days ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message numerus="yes">
        <source>%n+ messages found.</source>
        <translation>
            <numerusform>%n+ messages found.</numerusform>
            <numerusform>%n+ messages found.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n message(s) found.</source>
        <translation>
            <numerusform>%n message found.</numerusform>
            <numerusform>%n messages found.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkQueueModel</name>
    <message numerus="yes">
        <source>{text}   (%n messages it may answer)</source>
        <translation>
            <numerusform>{text}   (%n message it may answer)</numerusform>
            <numerusform>{text}   (%n messages it may answer)</numerusform>
        </translation>
    </message>
</context>
</TS>
